/**
 * The meta-test of list help: every list's `--filter` help is generated from its own spec,
 * and every example a list command shows (its examples and the filters its `--filter` help
 * suggests) runs against a real database and exits 0. `<recordId>` and `<webhookId>` in an
 * example stand for an id the reader has; the test puts real ones there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIST_SPECS } from "../../../src/contract/list-query.js";
import { loadCommands } from "../../../src/cli/registry.js";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { createModel, ok, run, setStatus } from "../support.js";

const COMMANDS = await loadCommands();

let box: Sandbox;
const ids: Record<string, string> = {};

/** The names the examples use, made real: models Loan and Applicant, case-42, min-loan, a webhook. */
beforeAll(async () => {
  box = sandbox();
  await createModel(box, { name: "Loan", fields: [{ name: "amount", type: "number" }] });
  await createModel(box, { name: "Applicant", identity: ["applicantId"], fields: [{ name: "applicantId", type: "string" }] });
  for (const m of ["Loan", "Applicant"]) await setStatus(box, "models", m, "active");
  ok(await run(box, ["contexts", "create", "--name", "case-42", "--type", "mortgage", "--metadata", "region=west", "--json"]));
  const c = ok(await run(box, ["contributions", "add", "--context", "case-42", "--model", "Loan", "--source-id", "doc-1", "--source-type", "document", "--data", "amount=250000", "--json"]));
  ids.recordId = c.recordId;
  ok(await run(box, ["rules", "create", "--name", "min-loan", "--category", "eligibility", "--severity", "high", "--expression", '{">=": [{"var": "Loan.amount"}, 1]}', "--json"]));
  ids.webhookId = ok(await run(box, ["webhooks", "create", "--url", "https://example.com/hooks/dds", "--event", "context.resolved", "--json"])).webhookId;
});
afterAll(() => box.cleanup());

/** Splits a shell line into words as bash would (quotes; a `#` comment ends it). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "'" || ch === '"') {
      const end = line.indexOf(ch, i + 1);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (ch === " ") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (ch === "#" && word === undefined) break;
    else word = (word ?? "") + ch;
  }
  if (word !== undefined) words.push(word);
  return words;
}

const LISTS = COMMANDS.filter((c) => c.args.filter?.list !== undefined);
/** What a list needs before its filters (the others need nothing). */
const REQUIRED: Record<string, string[]> = { "evaluations list": ["--context", "case-42"], "webhooks deliveries": ["https://example.com/hooks/dds"] };

async function runsClean(example: string[]): Promise<void> {
  const args = example.map((w) => w.replace(/<(recordId|webhookId)>/g, (_, k: string) => ids[k]));
  const r = await run(box, args);
  expect(r.exitCode, `ddsctl ${args.join(" ")}\n${r.stderr}`).toBe(0);
}

describe("list help examples", () => {
  it("finds every list (the checks below are not vacuous)", () => {
    expect(LISTS.map((c) => c.command).sort()).toEqual(
      ["contexts list", "contributions list", "evaluations list", "fields list", "models list", "records list", "rules list", "webhooks deliveries", "webhooks list"].sort(),
    );
  });

  for (const def of LISTS) {
    const list = def.args.filter.list!;
    it(`${def.command}: --filter help names its own fields, and its examples run`, async () => {
      const help = def.args.filter.description;
      for (const field of LIST_SPECS[list].filters) expect(help).toContain(field);
      const suggested = shellWords(/e\.g\. (.*)$/.exec(help)?.[1] ?? "");
      expect(suggested.length).toBeGreaterThan(0);
      for (const filter of suggested) await runsClean([...def.command.split(" "), ...(REQUIRED[def.command] ?? []), "--filter", filter]);
      // At least one example shows --filter, and every example runs as written.
      expect(def.examples.some((e) => e.includes("--filter"))).toBe(true);
      for (const example of def.examples) {
        const words = shellWords(example);
        expect(words[0]).toBe("ddsctl");
        await runsClean(words.slice(1));
      }
    });
  }
});
