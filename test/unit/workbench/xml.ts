/** A parsed XML element: name, attributes, child elements and text. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e.startsWith("#x")) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith("#")) return String.fromCodePoint(Number(e.slice(1)));
    if (!(e in ENTITIES)) throw new Error(`unknown entity ${m}`);
    return ENTITIES[e];
  });
}

/**
 * A tiny recursive-descent parser for the XML subset JUnit reports use (declaration,
 * elements, attributes, text, entities; no DTD, CDATA or comments). Throws on anything
 * not well-formed: mismatched tags, bad attributes, a bare `<` or `&`, trailing content.
 */
export function parseXml(source: string): XmlElement {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at offset ${i}: ${JSON.stringify(source.slice(i, i + 30))}`);
  };
  const skipSpace = () => {
    while (i < source.length && /\s/.test(source[i])) i++;
  };
  const name = (): string => {
    const m = /^[A-Za-z_][\w.-]*/.exec(source.slice(i));
    if (!m) fail("expected a name");
    i += m![0].length;
    return m![0];
  };
  const element = (): XmlElement => {
    if (source[i] !== "<") fail("expected <");
    i++;
    const el: XmlElement = { name: name(), attrs: {}, children: [], text: "" };
    for (;;) {
      skipSpace();
      if (source.startsWith("/>", i)) {
        i += 2;
        return el;
      }
      if (source[i] === ">") {
        i++;
        break;
      }
      const key = name();
      if (source[i++] !== "=" || source[i++] !== '"') fail("expected =\"");
      const end = source.indexOf('"', i);
      if (end < 0) fail("unterminated attribute");
      const raw = source.slice(i, end);
      if (/[<&](?![a-z#][\w#]*;)/i.test(raw)) fail("bare < or & in attribute");
      if (key in el.attrs) fail(`duplicate attribute ${key}`);
      el.attrs[key] = decode(raw);
      i = end + 1;
    }
    for (;;) {
      const next = source.indexOf("<", i);
      if (next < 0) fail(`unclosed <${el.name}>`);
      const text = source.slice(i, next);
      if (/&(?![a-z#][\w#]*;)/i.test(text)) fail("bare & in text");
      el.text += decode(text);
      i = next;
      if (source.startsWith("</", i)) {
        i += 2;
        if (name() !== el.name) fail(`mismatched </…> for <${el.name}>`);
        skipSpace();
        if (source[i++] !== ">") fail("expected >");
        return el;
      }
      el.children.push(element());
    }
  };
  skipSpace();
  if (source.startsWith("<?xml", i)) {
    const end = source.indexOf("?>", i);
    if (end < 0) fail("unterminated declaration");
    i = end + 2;
  }
  skipSpace();
  const root = element();
  skipSpace();
  if (i !== source.length) fail("content after the root element");
  return root;
}
