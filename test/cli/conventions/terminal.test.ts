import { execa } from "execa";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";

// Prompts and questions need a terminal: these run the real binary in a pseudo-terminal
// (util-linux `script`), type into it, and read what it shows.
let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

/**
 * Runs `ddsctl <args>` in a pty; each step waits for its text on the screen, then types.
 * Resolves with the exit code and everything shown.
 */
async function inTerminal(args: string[], steps: { waitFor: string; type: string }[]): Promise<{ exitCode: number; screen: string }> {
  const command = ["node", BIN, ...args].map((a) => `'${a}'`).join(" ");
  const child = execa("script", ["-qefc", command, "/dev/null"], { cwd: box.dir, env: { ...box.env, TERM: "dumb", COLUMNS: "100" }, reject: false });
  let screen = "";
  child.stdout!.on("data", (d: Buffer) => (screen += d.toString()));
  for (const step of steps) {
    while (!screen.includes(step.waitFor)) {
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    child.stdin!.write(step.type);
  }
  const r = await child;
  return { exitCode: r.exitCode ?? -1, screen };
}

describe("Ctrl-C in a prompt", () => {
  it("init's first question: one line, exit 130", async () => {
    const r = await inTerminal(["init"], [{ waitFor: "Where should ddsctl work?", type: "\u0003" }]);
    expect(r.exitCode, r.screen).toBe(130);
    expect(r.screen).toContain("interrupted");
    expect(r.screen).not.toMatch(/User force closed|unexpected error/);
  });
});

describe("questions before destruction on a terminal", () => {
  it("profiles remove asks; no keeps the profile (exit 1), yes removes it", async () => {
    expect((await ddsctl(box, ["init", "--mode", "local", "--db", join(box.dir, "p.db"), "--profile-name", "keep", "--yes"])).exitCode).toBe(0);
    const no = await inTerminal(["profiles", "remove", "keep"], [{ waitFor: "Remove profile keep?", type: "n\r" }]);
    expect(no.exitCode, no.screen).toBe(1);
    expect(no.screen).toContain("cancelled");
    expect((await ddsctl(box, ["profiles", "list", "--json"])).json().profiles).toHaveLength(1);
    const yes = await inTerminal(["profiles", "remove", "keep"], [{ waitFor: "Remove profile keep?", type: "y\r" }]);
    expect(yes.exitCode, yes.screen).toBe(0);
    expect((await ddsctl(box, ["profiles", "list", "--json"])).json().profiles).toHaveLength(0);
  });

  it("demo --fresh asks before deleting the database; --yes does not ask", async () => {
    const db = join(box.dir, "fresh.db");
    expect((await ddsctl(box, ["--local", db, "contexts", "create", "--name", "mine"])).exitCode).toBe(0);
    const no = await inTerminal(["--local", db, "demo", "--fresh"], [{ waitFor: "and all its data?", type: "n\r" }]);
    expect(no.exitCode, no.screen).toBe(1);
    expect(existsSync(db)).toBe(true);
    expect((await ddsctl(box, ["--local", db, "contexts", "list", "--json"])).json().data).toHaveLength(1);
  });

  it("a delete asks on a terminal and --yes skips the question", async () => {
    const db = join(box.dir, "del.db");
    const c = (await ddsctl(box, ["--local", db, "contexts", "create", "--name", "gone", "--json"])).json();
    await ddsctl(box, ["--local", db, "contexts", "status", "gone", "completed"]);
    await ddsctl(box, ["--local", db, "contexts", "status", "gone", "archived"]);
    const no = await inTerminal(["--local", db, "contexts", "delete", "gone"], [{ waitFor: "Delete context gone?", type: "n\r" }]);
    expect(no.exitCode, no.screen).toBe(1);
    const yes = await inTerminal(["--local", db, "contexts", "delete", "gone", "--yes"], []);
    expect(yes.exitCode, yes.screen).toBe(0);
    expect((await ddsctl(box, ["--local", db, "contexts", "get", c.contextId])).exitCode).toBe(4);
  });
});
