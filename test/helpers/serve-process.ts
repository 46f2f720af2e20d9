import { execa, type ResultPromise } from "execa";
import { BIN, type Sandbox } from "./cli.js";

/** A `ddsctl serve` child process and what it said. */
export interface ServeProcess {
  proc: ResultPromise;
  /** The API base URL it printed (`http://127.0.0.1:<port>/v1`). */
  url: string;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Spawns `ddsctl serve --port 0 <extra>` in the sandbox and resolves once it prints its
 * address (stderr, even under --quiet). `ddsctl` is this checkout's unless `command` names
 * another (the upgrade tests' next release).
 */
export async function spawnServe(box: Pick<Sandbox, "dir" | "env">, extra: string[] = [], env: Record<string, string> = {}, command: string[] = ["node", BIN]): Promise<ServeProcess> {
  const proc = execa(command[0], [...command.slice(1), "serve", "--port", "0", ...extra], { cwd: box.dir, env: { ...box.env, ...env }, reject: false });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    proc.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on (http:\/\/[^\s"]+\/v1)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    proc.then((r) => reject(new Error(`serve exited ${r.exitCode}: ${stderr}`)), reject);
  });
  return {
    proc,
    url,
    stderr: () => stderr,
    async stop() {
      proc.kill("SIGTERM");
      await proc;
    },
  };
}
