/**
 * The rule editor: CodeMirror 6 with JSON or YAML highlighting and the rule document's
 * problems as lint marks while typing. Loaded on demand (its own chunk), so the first
 * view does not wait for it.
 */
import { json } from "@codemirror/lang-json";
import { yaml } from "@codemirror/lang-yaml";
import { linter, lintGutter, type Diagnostic } from "@codemirror/lint";
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { indentWithTab } from "@codemirror/commands";
import { basicSetup } from "codemirror";
import { parseRuleText, type RuleFormat } from "./rule-document.js";

/** A mounted editor. */
export interface RuleEditor {
  text(): string;
  /** Replaces the text (switching the format). */
  setText(text: string, format: RuleFormat): void;
  destroy(): void;
}

const language = (format: RuleFormat) => (format === "json" ? json() : yaml());

/** Mounts an editor in `parent`; `onChange` gets every new text. */
export function mountRuleEditor(parent: HTMLElement, text: string, format: RuleFormat, onChange: (text: string) => void): RuleEditor {
  const lang = new Compartment();
  const problems = linter((view): Diagnostic[] => parseRuleText(view.state.doc.toString()).problems.map((p) => ({ ...p, to: Math.min(p.to, view.state.doc.length), severity: "error" })), { delay: 200 });
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        basicSetup,
        // Tab indents; Escape then Tab leaves the editor (CodeMirror's accessible default).
        keymap.of([indentWithTab]),
        lang.of(language(format)),
        problems,
        lintGutter(),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": "Rule document" }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    text: () => view.state.doc.toString(),
    setText(next, f) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next }, effects: lang.reconfigure(language(f)) });
    },
    destroy: () => view.destroy(),
  };
}
