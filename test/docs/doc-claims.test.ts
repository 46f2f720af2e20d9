/**
 * Sentences of the docs that a reader acts on, checked against what the code does: every
 * relative link (file and section) resolves, a section named in quotes is where the link
 * says, the health checks answer the bodies docs/deployment.md quotes, and the target
 * banner reads as docs/cli.md shows it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeTarget, resolveTarget } from "../../src/cli/target.js";
import { startServer, type Harness } from "../server/harness.js";

const ROOT = join(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

function markdown(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name.startsWith(".")) return [];
    return statSync(join(ROOT, path)).isDirectory() ? markdown(path) : name.endsWith(".md") ? [path] : [];
  });
}
const DOCS = ["README.md", ...markdown("docs"), ...markdown("fixtures"), ...markdown("examples")];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
const anchors = (text: string) => new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));
/** Links outside code blocks (fenced blocks hold shell lines, not links). */
const links = (text: string) => [...text.replace(/```[\s\S]*?```/g, "").matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);

describe("the docs' links", () => {
  it("reads the docs (the checks below are not vacuous)", () => {
    expect(DOCS).toEqual(expect.arrayContaining(["README.md", "docs/cli.md", "docs/problems.md", "fixtures/mortgage/README.md"]));
  });

  it("every relative link names a file that exists, and a section it has", () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      for (const link of links(read(doc))) {
        if (/^[a-z]+:/.test(link)) continue;
        const [file, anchor] = link.split("#");
        const target = file === "" ? doc : relative(ROOT, join(ROOT, dirname(doc), file));
        let text: string;
        try {
          text = read(target);
        } catch {
          broken.push(`${doc}: ${link} (no file ${target})`);
          continue;
        }
        if (anchor && target.endsWith(".md") && !anchors(text).has(anchor)) broken.push(`${doc}: ${link} (no section #${anchor} in ${target})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('a section named in quotes ("see \\"X\\" in [file]") is in that file', () => {
    const wrong: string[] = [];
    let seen = 0;
    for (const doc of DOCS) {
      for (const m of read(doc).matchAll(/see "([^"]+)" in\s+\[[^\]]*\]\(([^)#]+)[^)]*\)/g)) {
        seen++;
        const text = read(relative(ROOT, join(ROOT, dirname(doc), m[2])));
        if (!text.includes(`**${m[1]}.**`) && !anchors(text).has(slug(m[1]))) wrong.push(`${doc}: "${m[1]}" is not in ${m[2]}`);
      }
    }
    expect(seen).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});

describe("docs/deployment.md's health checks", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startServer({ worker: false, webhooks: false });
  });
  afterAll(() => h?.close());

  it("quotes the bodies /healthz and /readyz answer while the database answers", async () => {
    const text = read("docs/deployment.md").replace(/\s+/g, " ");
    const quoted = (path: string) => new RegExp(`\`GET ${path}\` is 200 \`(\\{[^\`]+\\})\``).exec(text)?.[1];
    for (const path of ["/healthz", "/readyz"]) {
      const body = quoted(path);
      expect(body, `docs/deployment.md says what ${path} answers`).toBeDefined();
      const res = await h.request("GET", path);
      expect(res.status).toBe(200);
      expect(res.json).toEqual(JSON.parse(body!));
    }
  });
});

describe("docs/cli.md's target banner", () => {
  it("shows each banner as the CLI prints it", () => {
    const text = read("docs/cli.md").replace(/\s+/g, " ");
    const sentence = /The target is announced on stderr \((.*?)\) when a command opens it/.exec(text)?.[1] ?? "";
    const shown = [...sentence.matchAll(/`((?:local|database|remote) [^`]+)`/g)].map((m) => m[1]);
    expect(shown).toEqual([
      describeTarget(resolveTarget({}, {})),
      describeTarget(resolveTarget({ database: "postgres://dds:secret@host/dds" }, {})),
      describeTarget(resolveTarget({ remote: "http://127.0.0.1:8080" }, {})),
    ]);
  });
});

describe("docs/architecture.md's files", () => {
  /** Every source file, by its path from the repository's root. */
  const sources = (dir: string): string[] =>
    readdirSync(join(ROOT, dir)).flatMap((name) => {
      const path = join(dir, name);
      return statSync(join(ROOT, path)).isDirectory() ? sources(path) : [path];
    });

  it("every file it names exists (by its path, or a path ending in it)", () => {
    const all = [...sources("src"), ...sources("web"), ...sources("test")];
    const named = [...read("docs/architecture.md").matchAll(/`([\w./-]+\.(?:ts|mjs))`/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(50);
    expect(named.filter((p) => !all.some((f) => f === p || f.endsWith(`/${p}`)))).toEqual([]);
  });
});
