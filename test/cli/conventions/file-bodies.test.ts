/**
 * Every `-f` reads JSON or YAML through one reader: a request body written as YAML works
 * wherever a JSON one does (issue: `rules update -f dti-draft.yaml` said "not valid JSON"
 * while `rules eval` read the same file).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCommands } from "../../../src/cli/registry.js";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { expectErrorLine, messages, ok, run, uniq } from "../support.js";

const COMMANDS = await loadCommands();

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

const file = (name: string, text: string) => {
  const path = join(box.dir, name);
  writeFileSync(path, text);
  return path;
};

/** The commands this file drives with a YAML `-f`; the meta-test below keeps it complete. */
const COVERED = [
  "models create",
  "models update",
  "fields add",
  "fields update",
  "contexts create",
  "contexts update",
  "contributions add",
  "records update",
  "records delete",
  "rules create",
  "rules update",
  "webhooks create",
  "apply",
  "rules eval",
];

describe("-f reads JSON or YAML", () => {
  it("every command that takes -f is driven with YAML below", () => {
    const withFile = COMMANDS.filter((c) => c.args.file?.short === "f").map((c) => c.command);
    expect(withFile.length).toBeGreaterThan(10);
    expect(withFile.filter((c) => !COVERED.includes(c))).toEqual([]);
  });

  it("creates and updates models, fields, contexts, evidence, records, rules and webhooks from YAML", async () => {
    const model = uniq("YamlLoan");
    ok(await run(box, ["models", "create", "-f", file("model.yaml", `name: ${model}\nfields:\n  - name: amount\n    type: number\n`), "--json"]));
    expect(ok(await run(box, ["models", "update", model, "-f", file("model-patch.yaml", "description: loans from YAML\n"), "--json"])).description).toBe("loans from YAML");
    ok(await run(box, ["fields", "add", model, "-f", file("field.yaml", "name: termMonths\ntype: integer\n"), "--json"]));
    expect(ok(await run(box, ["fields", "update", model, "termMonths", "-f", file("field-put.yaml", "name: termMonths\ntype: integer\nrequired: true\n"), "--json"])).required).toBe(true);
    ok(await run(box, ["models", "status", model, "active", "--json"]));

    const context = uniq("yaml-case");
    // YAML on stdin too.
    ok(await run(box, ["contexts", "create", "-f", "-", "--json"], `name: ${context}\ntype: mortgage\n`));
    expect(ok(await run(box, ["contexts", "update", context, "-f", file("ctx-patch.yaml", "metadata:\n  region: west\n"), "--json"])).metadata).toEqual({ region: "west" });

    const { contextId } = ok(await run(box, ["contexts", "get", context, "--json"]));
    const { modelId } = ok(await run(box, ["models", "get", model, "--json"]));
    const evidence = `contextId: ${contextId}\nmodelId: ${modelId}\nsourceId: doc-1\nsourceType: document\ndata:\n  amount: 250000\n`;
    const contribution = ok(await run(box, ["contributions", "add", "-f", file("contribution.yaml", evidence), "--json"]));
    const recordId = contribution.recordId as string;
    ok(await run(box, ["records", "update", recordId, "-f", file("record-patch.yaml", "data:\n  amount: 260000\n"), "--json"]));
    expect(ok(await run(box, ["records", "get", recordId, "--json"])).data.amount).toBe(260000);

    const rule = uniq("yaml-rule");
    ok(await run(box, ["rules", "create", "-f", file("rule.yaml", `name: ${rule}\ncategory: eligibility\nseverity: low\nexpression:\n  ">=": [{ var: ${model}.amount }, 1]\n`), "--json"]));
    // The case: a draft in YAML, the same file `rules eval` reads.
    const draft = file("draft.yaml", `expression:\n  ">=": [{ var: ${model}.amount }, 300000]\n`);
    expect(ok(await run(box, ["rules", "eval", draft, "--context", context, "--json"])).outcome).toBe(false);
    expect(ok(await run(box, ["rules", "update", rule, "-f", draft, "--json"])).version).toBe(2);

    const hook = ok(await run(box, ["webhooks", "create", "-f", file("hook.yaml", "url: https://example.test/yaml-hook\nevents: [context.resolved]\n"), "--json"]));
    expect(hook.events).toEqual(["context.resolved"]);
    expect((await run(box, ["webhooks", "delete", hook.webhookId, "--yes"])).exitCode).toBe(0);

    ok(await run(box, ["apply", "-f", file("apply.yaml", `kind: Rule\nname: ${uniq("applied")}\ncategory: credit\nseverity: low\nexpression: true\n`), "--json"]));
    const bulk = ok(await run(box, ["records", "delete", "--bulk", "--yes", "-f", file("delete.yaml", `items:\n  - recordId: ${recordId}\n`), "--json"]));
    expect(bulk.summary).toMatchObject({ succeeded: 1, failed: 0 });
  });

  it("text that is neither JSON nor YAML is a usage error (exit 2) quoting the parser that fits it", async () => {
    const unclosed = await run(box, ["contexts", "create", "-f", file("bad.yaml", "name: [unclosed\n")]);
    expect(unclosed.exitCode).toBe(2);
    expect(messages(unclosed)[0]).toMatch(/^error: \S*bad\.yaml is neither JSON nor YAML: .*Flow sequence .* at line 2, column 1:$/);
    expectErrorLine(await run(box, ["contexts", "create", "-f", file("bad-yaml.json", '{"name": "x",,}')]), 2, /bad-yaml\.json is neither JSON nor YAML: .*JSON/);
    expectErrorLine(await run(box, ["contexts", "create", "-f", "-"], ""), 2, /stdin is empty: give a JSON or YAML document/);
    expectErrorLine(await run(box, ["contexts", "create", "-f", "-"], "- a\n- b\n"), 2, /must be an object \(JSON or YAML\)/);
  });

  it("a YAML error shows where, with the lines and the caret, as apply shows it (one reader)", async () => {
    const path = file("misaligned.yaml", "name: Loan\nfields:\n  - name: amount\n type: number\n");
    const created = await run(box, ["models", "create", "-f", path]);
    expect(created.exitCode).toBe(2);
    expect(created.stderr).toContain("misaligned.yaml is neither JSON nor YAML: All mapping items must start at the same column at line 4, column 1:\n\n  - name: amount\n type: number\n^\n");
    const applied = await run(box, ["apply", "-f", path]);
    expect(applied.exitCode).toBe(2);
    expect(applied.stderr).toContain("misaligned.yaml: document 1: not valid YAML: All mapping items must start at the same column at line 4, column 1:\n\n  - name: amount\n type: number\n^\n");
  });
});
