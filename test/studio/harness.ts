/**
 * A real `ddsctl studio` for the tests: the demo's database (or any other), the studio
 * spawned from the built binary on a free port, its URL read from stdout.
 */
import { execa, type ResultPromise } from "execa";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "../helpers/cli.js";

/** A running studio process. */
export interface StudioProcess {
  /** The URL it printed (with the session key in the fragment). */
  url: string;
  origin: string;
  key: string;
  stop(): Promise<void>;
}

/** A temporary folder with its own database and config home. */
export interface Workdir {
  dir: string;
  db: string;
  env: Record<string, string>;
  /** Runs `ddsctl` there; fails the test on a non-zero exit. */
  run(args: string[], input?: string): Promise<string>;
  cleanup(): void;
}

/** Makes a workdir (its database does not exist until something writes it). */
export function workdir(): Workdir {
  const dir = mkdtempSync(join(tmpdir(), "ddsctl-studio-"));
  const db = join(dir, "dds.db");
  const env = { XDG_CONFIG_HOME: join(dir, "config"), NO_COLOR: "1", DDS_DB: db };
  return {
    dir,
    db,
    env,
    async run(args, input) {
      const r = await execa("node", [BIN, ...args], { cwd: dir, env, reject: false, input });
      if (r.exitCode !== 0) throw new Error(`ddsctl ${args.join(" ")} exited ${r.exitCode}: ${r.stderr}`);
      return String(r.stdout);
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Starts `ddsctl studio --port 0 …args` in the workdir and waits for its URL. */
export async function startStudioProcess(w: Workdir, args: string[] = []): Promise<StudioProcess> {
  const child: ResultPromise = execa("node", [BIN, "studio", "--port", "0", ...args], { cwd: w.dir, env: w.env, reject: false });
  const url = await new Promise<string>((ok, fail) => {
    let out = "";
    let err = "";
    child.stderr?.on("data", (c: Buffer) => (err += c.toString()));
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/\S+#session=\S+)/.exec(out);
      if (m) ok(m[1]);
    });
    void child.then((r) => fail(new Error(`ddsctl studio exited ${r.exitCode} before printing its URL: ${err}`)));
  });
  const [origin, key] = url.split("/#session=");
  return {
    url,
    origin,
    key,
    async stop() {
      child.kill("SIGTERM");
      await child;
    },
  };
}
