import { execa } from "execa";
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { caseFile, killAndRerun, SHAPES } from "./kill-scenario.js";
import { setupModels, writeLines } from "./support.js";

describe.each(SHAPES)("kill -9 during an import (%s shape)", (_shape, shape) => {
  let clean: Sandbox;
  let killed: Sandbox;
  beforeAll(async () => {
    clean = sandbox();
    killed = sandbox();
    // One after the other: the in-process CLI changes the working directory while it runs.
    await setupModels(clean);
    await setupModels(killed);
  });
  afterAll(() => {
    clean.cleanup();
    killed.cleanup();
  });

  it("reruns after SIGKILL at random moments end in the same database as one clean run", () => killAndRerun(clean, killed, shape), 120_000);
});

describe("kill -9 during an import", () => {
  it("a run that starts over and dies before its first checkpoint leaves no checkpoint a --resume would misread", async () => {
    const box = sandbox();
    try {
      await setupModels(box);
      const file = writeLines(box, "case.ndjson", caseFile());
      const args = ["import", "contributions", file, "--create-contexts", "--no-wait", "--quiet", "--json"];
      expect((await ddsctl(box, args)).exitCode).toBe(3);
      const rejects = readFileSync(`${file}.rejects.ndjson`, "utf8");
      // Starting over replaces the rejects file; it must drop the old checkpoint first,
      // which still says the whole file (and all its rejects) is done.
      const child = execa("node", [BIN, ...args], { cwd: box.dir, env: box.env, reject: false });
      let exited = false;
      void child.finally(() => (exited = true));
      while (!exited && existsSync(`${file}.checkpoint.json`)) await new Promise((r) => setTimeout(r, 2));
      child.kill("SIGKILL");
      expect((await child).signal, "the old checkpoint stayed while the run replaced the rejects file").toBe("SIGKILL");
      const resumed = await ddsctl(box, [...args, "--resume"]);
      expect(resumed.exitCode, resumed.stderr).toBe(3);
      expect(readFileSync(`${file}.rejects.ndjson`, "utf8")).toBe(rejects);
    } finally {
      box.cleanup();
    }
  }, 120_000);
});
