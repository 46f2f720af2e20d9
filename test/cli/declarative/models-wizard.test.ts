import { spawn, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wizardBody } from "../../../src/cli/commands/models/model-wizard.js";
import { BIN, sandbox, type Sandbox } from "../../helpers/cli.js";
import { expectExit } from "./helpers.js";


/** Runs a command in a pseudo-terminal (util-linux `script`), answering each prompt as it appears. */
async function withTerminal(box: Sandbox, command: string, answers: [RegExp, string][]): Promise<{ code: number | null; output: string }> {
  // The pseudo-terminal comes from util-linux `script`; without it this test cannot run, and says so.
  if (spawnSync("script", ["--version"]).status !== 0) throw new Error("util-linux `script` is needed for the terminal tests (apt-get install bsdutils)");
  const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: box.dir, env: { ...process.env, ...box.env } });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  let seen = 0;
  for (const [prompt, keys] of answers) {
    const deadline = Date.now() + 15_000;
    // Look only past what earlier answers consumed, so a repeated word cannot match early.
    while (!prompt.test(output.slice(seen))) {
      if (Date.now() > deadline) throw new Error(`no prompt ${prompt} in: ${output.slice(-400)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    seen = output.length;
    child.stdin.write(keys);
  }
  return { code: await closed, output: output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "") }; // eslint-disable-line no-control-regex -- strips ANSI
}

describe("models create without -f", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  it("without a terminal is a usage error that says to pass -f", async () => {
    const r = await expectExit(box, ["models", "create"], 2, { env: { CI: "true" } });
    expect(r.stderr).toMatch(/give the model as -f <file\|->/);
  });

  it("turns the wizard's answers into a POST /models body", () => {
    expect(
      wizardBody({
        name: " Pet ",
        description: "",
        fields: [
          { name: "petId", type: "string", required: true },
          { name: "size", type: "enum", required: false, values: ["s", "m"] },
        ],
        identity: "petId",
      }),
    ).toEqual({
      name: "Pet",
      identity: ["petId"],
      fields: [
        { name: "petId", type: "string", required: true },
        { name: "size", type: "enum", validation: { values: ["s", "m"] } },
      ],
    });
    expect(wizardBody({ name: "Loan", description: "the loan", fields: [], identity: undefined })).toEqual({ name: "Loan", description: "the loan", fields: [] });
  });

  it("on a terminal, asks for name, fields and identity, then creates the draft", async () => {
    const down = "\x1b[B";
    const { code, output } = await withTerminal(box, `node ${BIN} models create`, [
      [/Model name/, "Pet\r"],
      [/Description/, "a pet\r"],
      [/Field 1 name/, "petId\r"],
      [/Type of petId/, "\r"],
      [/petId required/, "y\r"],
      [/Field 2 name/, "weight\r"],
      [/Type of weight/, `${down}\r`],
      [/weight required/, "\r"],
      [/Field 3 name/, "\r"],
      [/Identity/, `${down}\r`],
    ]);
    expect(code, output).toBe(0);
    expect(output).toMatch(/status: +draft/);
    const model = (await expectExit(box, ["models", "get", "Pet", "--json"], 0)).json();
    expect(model).toMatchObject({ name: "Pet", description: "a pet", status: "draft", identity: ["petId"] });
    expect(model.fields.map((f: { name: string; type: string; required: boolean }) => [f.name, f.type, f.required])).toEqual([
      ["petId", "string", true],
      ["weight", "number", false],
    ]);
  });
});
