import { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CliIO } from "../../../src/cli/core/io.js";
import { main } from "../../../src/cli/main.js";
import { CapturedStream } from "../../helpers/cli.js";

/** Runs `ddsctl completion bash` with a stdout that fails as a full disk would: a bug's path, not a user's mistake. */
async function failingRun(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const stdout = new Writable({ write: () => undefined });
  stdout.write = () => {
    throw new Error("no space left on device");
  };
  const stderr = new CapturedStream();
  const io: CliIO = { stdout, stderr, stdin: Readable.from([]), env: { NO_COLOR: "1", ...env } };
  return { code: await main(["completion", "bash"], io), stderr: stderr.text() };
}

describe("an unexpected error", () => {
  it("is one line with the hint to set DDS_DEBUG=1, and no stack", async () => {
    const r = await failingRun({});
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: unexpected error: no space left on device (set DDS_DEBUG=1 for details)\n");
  });

  it("under DDS_DEBUG=1 shows its stack, and does not ask for DDS_DEBUG=1 again", async () => {
    const r = await failingRun({ DDS_DEBUG: "1" });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("set DDS_DEBUG=1");
    expect(r.stderr.split("\n")[0]).toBe("error: unexpected error: no space left on device (its stack follows)");
    expect(r.stderr).toMatch(/^ {4}at /m);
  });
});
