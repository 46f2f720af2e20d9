import { execa } from "execa";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { caseFile, killAndRerun, SHAPES } from "./kill-scenario.js";
import { contribution, setupModels, writeLines } from "./support.js";
import { openSqliteFile } from "../../../src/engine/store/sqlite/open-file.js";

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

  it("a kill while the checkpoint thread copies the WAL leaves a database that opens intact, and --resume stores every line once", async () => {
    const box = sandbox();
    try {
      // A model without computed fields, so its records are written resolved: about 4 KB of
      // WAL a dozen lines, enough for the store to start its checkpoint thread early on.
      const model = { kind: "Model", name: "Person", identity: ["ssn"], fields: [{ name: "ssn", type: "string" }, { name: "name", type: "string" }, { name: "score", type: "integer" }] };
      writeFileSync(join(box.dir, "person.json"), JSON.stringify([model]));
      expect((await ddsctl(box, ["apply", "-f", join(box.dir, "person.json"), "--quiet"])).exitCode).toBe(0);
      const total = 80_000;
      const lines = Array.from({ length: total }, (_, i) => contribution(`case-${i % 100}`, "Person", `feed-${i % 7}`, { ssn: String(100_000_000 + i), name: `Person ${i}`, score: i % 850 }));
      const file = writeLines(box, "people.ndjson", lines);
      const args = ["import", "contributions", file, "--create-contexts", "--no-wait", "--quiet", "--json"];
      const child = execa("node", [BIN, ...args], { cwd: box.dir, env: box.env, reject: false });
      let exited = false;
      void child.finally(() => (exited = true));
      const checkpoint = `${file}.checkpoint.json`;
      const doneLines = (): number => {
        try {
          return (JSON.parse(readFileSync(checkpoint, "utf8")) as { lastCompletedLine: number }).lastCompletedLine;
        } catch {
          // Not written yet (or caught mid-write): read again on the next turn.
          return 0;
        }
      };
      // The wal-index (walformat.html): the WAL's last frame at 16, the frames copied back at
      // 96. Read twice alike, so a header being written is not taken for one.
      const walIndex = (): { frames: number; copied: number } | undefined => {
        if (!existsSync(`${box.db}-shm`)) return undefined;
        const [a, b] = [readFileSync(`${box.db}-shm`).subarray(0, 100), readFileSync(`${box.db}-shm`).subarray(0, 100)];
        // A file SQLite has only just created may be shorter than the header yet.
        return a.length === 100 && a.equals(b) ? { frames: a.readUInt32LE(16), copied: a.readUInt32LE(96) } : undefined;
      };
      // Killed once three write groups are committed and pages were copied back while fewer
      // than the writer's own threshold (10,000) were in the WAL, which only the thread does:
      // nothing here waits on time, only on what the import has done.
      let seen: { frames: number; copied: number } | undefined;
      while (!exited) {
        const w = walIndex();
        if (doneLines() >= 30_000 && w && w.copied > 0 && w.frames < 10_000) {
          seen = w;
          break;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      child.kill("SIGKILL");
      expect((await child).signal, "the import ended before the thread was seen copying").toBe("SIGKILL");
      expect(seen?.copied).toBeGreaterThan(0);
      const raw = openSqliteFile(box.db, { fileMustExist: true });
      try {
        expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
      } finally {
        raw.close();
      }
      const resumed = await ddsctl(box, [...args, "--resume"]);
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      const after = openSqliteFile(box.db, { readonly: true, fileMustExist: true });
      try {
        expect(after.pragma("integrity_check", { simple: true })).toBe("ok");
        expect(after.prepare("SELECT count(*) AS n FROM contributions").get()).toEqual({ n: total });
        expect(after.prepare("SELECT count(*) AS n FROM records").get()).toEqual({ n: total });
      } finally {
        after.close();
      }
    } finally {
      box.cleanup();
    }
  }, 120_000);
});
