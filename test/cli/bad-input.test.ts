import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../helpers/cli.js";
import { createContext, createModel, expectErrorLine, expectProblem, messages, MISSING_ID, ok, run, runBody, uniq } from "./support.js";

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

describe("request bodies given with -f", () => {
  it("a file with malformed JSON is a usage error (exit 2) saying it is neither JSON nor YAML", async () => {
    const path = file("bad.json", "{bad");
    const line = expectErrorLine(await run(box, ["models", "create", "-f", path]), 2, /neither JSON nor YAML/);
    expect(line).toContain(path);
    expectErrorLine(await run(box, ["contexts", "create", "-f", path]), 2, /neither JSON nor YAML/);
  });

  it("malformed JSON on stdin, or an empty stdin, is a usage error too", async () => {
    expectErrorLine(await run(box, ["contexts", "create", "-f", "-"], "{bad"), 2, /^error: stdin is neither JSON nor YAML/);
    expectErrorLine(await run(box, ["contexts", "create", "-f", "-"], ""), 2, /stdin is empty/);
  });

  it("under --json a usage error is the problem object on stderr", async () => {
    const path = file("bad2.json", "[1,");
    const p = expectProblem(await run(box, ["models", "create", "-f", path, "--json"]), 2, 400, "invalid_request");
    expect(p.detail).toMatch(/neither JSON nor YAML/);
  });

  it("a missing file is a usage error (exit 2)", async () => {
    expectErrorLine(await run(box, ["models", "create", "-f", join(box.dir, "nope.json")]), 2, /cannot read .*nope\.json: no such file/);
  });

  it("JSON that is not an object is a usage error (exit 2)", async () => {
    expectErrorLine(await run(box, ["contexts", "create", "-f", "-"], "[1,2]"), 2, /must be an object \(JSON or YAML\)/);
    expectErrorLine(await run(box, ["contexts", "create", "-f", "-"], '"text"'), 2, /must be an object \(JSON or YAML\)/);
  });

  it("an unknown property is 400 naming it (exit 1)", async () => {
    const name = uniq("Loan");
    const p = expectProblem(await runBody(box, ["models", "create"], { name, fields: [], colour: "red" }), 1, 400, "invalid_request");
    expect(p.detail).toContain('"colour"');
    expect(p.errors).toEqual([{ path: "", message: 'unknown property "colour"' }]);
    expectErrorLine(await run(box, ["models", "create", "-f", "-"], JSON.stringify({ name, fields: [{ name: "a", type: "number", reqired: true }] })), 1, /"reqired"/);
    expectErrorLine(await run(box, ["contexts", "create", "-f", "-"], '{"nmae":"x"}'), 1, /unknown property "nmae"/);
    expectErrorLine(await run(box, ["models", "get", name]), 4);
  });

  it("a wrong type is 400 (exit 1) naming the path", async () => {
    const p = expectProblem(await runBody(box, ["models", "create"], { name: uniq("Loan"), fields: "x" }), 1, 400, "invalid_request");
    expect(p.errors).toEqual([{ path: "fields", message: expect.stringMatching(/expected array/) }]);
    expectErrorLine(await run(box, ["contexts", "create", "-f", "-"], '{"metadata":"x"}'), 1, /metadata/);
    expectErrorLine(await run(box, ["models", "create", "-f", "-"], JSON.stringify({ name: uniq("L"), fields: [{ name: "a", type: "money" }] })), 1, /fields\.0\.type/);
  });

  it("a missing required property is 400 (exit 1)", async () => {
    expectErrorLine(await run(box, ["models", "create", "-f", "-"], '{"fields":[]}'), 1, /name/);
  });

  it("a name with a dot is rejected (names are path segments)", async () => {
    expectErrorLine(await run(box, ["models", "create", "--name", "a.b"]), 1, /must not contain '\.'/);
  });
});

describe("resources that do not exist", () => {
  it("an unknown model id or name is 404 (exit 4) for every model command", async () => {
    for (const args of [
      ["models", "get", MISSING_ID],
      ["models", "get", uniq("NoSuch")],
      ["models", "update", MISSING_ID, "--description", "x"],
      ["models", "status", MISSING_ID, "active"],
      ["models", "delete", MISSING_ID],
      ["fields", "list", MISSING_ID],
      ["fields", "get", MISSING_ID, "amount"],
      ["fields", "get", MISSING_ID],
      ["fields", "add", MISSING_ID, "--name", "x", "--type", "number"],
      ["fields", "delete", MISSING_ID],
    ]) {
      const r = await run(box, [...args, "--json"]);
      expect(r.exitCode, args.join(" ")).toBe(4);
      const p = expectProblem(r, 4, 404, "not_found");
      expect(p.detail, args.join(" ")).toMatch(/not found/);
    }
  });

  it("an unknown context id is 404 (exit 4) for every context command", async () => {
    for (const args of [
      ["contexts", "get", MISSING_ID],
      ["contexts", "get", MISSING_ID, "--summary"],
      ["contexts", "update", MISSING_ID, "--name", "x"],
      ["contexts", "status", MISSING_ID, "completed"],
      ["contexts", "delete", MISSING_ID],
    ]) {
      expectErrorLine(await run(box, args), 4, new RegExp(`context ${MISSING_ID} not found`));
    }
  });

  it("ids are matched case-insensitively", async () => {
    const c = await createContext(box);
    expect(ok(await run(box, ["contexts", "get", c.contextId.toUpperCase(), "--json"]))).toEqual(c);
    const m = await createModel(box, { name: uniq("Case"), fields: [{ name: "a", type: "number" }] });
    expect(ok(await run(box, ["models", "get", m.modelId.toUpperCase(), "--json"]))).toEqual(m);
  });

  // Decision recorded by this test: a context id that is not a UUID cannot name any
  // context, so it is "not found" (404, exit 4) like any other unknown id, not a usage
  // error. A fieldId, by contrast, is told apart from a model name by its shape, so
  // `fields get <not-a-uuid>` with one argument is a usage error (exit 2).
  it("a non-UUID context id is 404 (exit 4); a lone non-UUID field reference is a usage error (exit 2)", async () => {
    expectProblem(await run(box, ["contexts", "get", "not-a-uuid", "--json"]), 4, 404, "not_found");
    expectErrorLine(await run(box, ["contexts", "status", "42", "completed"]), 4, /context 42 not found/);
    expectErrorLine(await run(box, ["fields", "get", "amount"]), 2, /give a fieldId, or a model and a field name/);
  });
});

describe("command-line usage errors (exit 2)", () => {
  it("an unknown option", async () => {
    const r = await run(box, ["models", "list", "--colour"]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: unknown option '--colour'$/m);
  });

  it("an unknown command", async () => {
    const r = await run(box, ["modles", "list"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'modles'/);
  });

  it("a missing argument", async () => {
    const r = await run(box, ["contexts", "status", MISSING_ID]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/missing required argument 'status'/);
    expect((await run(box, ["models", "get"])).exitCode).toBe(2);
  });

  it("a surplus argument", async () => {
    const r = await run(box, ["contexts", "get", MISSING_ID, "extra"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/too many arguments/);
  });

  it("a noun without a verb prints help on stderr and exits 2", async () => {
    const r = await run(box, ["models"]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/Usage: ddsctl models/);
  });

  it("models create with neither -f nor --name", async () => {
    expectErrorLine(await run(box, ["models", "create"]), 2, /-f <file\|->/);
  });

  it("usage errors are reported before the database is opened (no banner)", async () => {
    const r = await run(box, ["models", "create", "-f", join(box.dir, "missing.json")]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).not.toMatch(/^local /m);
  });
});

describe("errors never show a stack trace", () => {
  it("not on failures, usage errors or not-found", async () => {
    for (const [args, input] of [
      [["models", "create", "-f", "-"], "{bad"],
      [["models", "create", "-f", "-"], '{"name":"x","fields":"x"}'],
      [["contexts", "get", "nope"], undefined],
      [["contexts", "list", "--filter", "zzz=1"], undefined],
      [["contexts", "list", "--cursor", "%%%"], undefined],
      [["models", "status", MISSING_ID, "sideways"], undefined],
      [["--no-such-flag"], undefined],
    ] as [string[], string | undefined][]) {
      const r = await run(box, args, input);
      expect(r.exitCode, args.join(" ")).not.toBe(0);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stderr).not.toMatch(/\bError: /);
      expect(messages(r).length).toBeGreaterThan(0);
    }
  });
});

describe("an answer with several problems", () => {
  it("prints every problem without a terminal too, one indented line each", async () => {
    const body = { name: uniq("Twice"), identity: ["nope"], fields: [{ name: "a", type: "number" }, { name: "a", type: "string" }] };
    const r = await run(box, ["models", "create", "-f", "-"], JSON.stringify(body));
    expect(r.exitCode).toBe(1);
    expect(messages(r)).toEqual([
      'error: model definition is invalid: fields.1.name: duplicate field name "a"',
      '  fields.1.name: duplicate field name "a"',
      '  identity.0: identity field "nope" is not a field of the model',
    ]);
  });
});
