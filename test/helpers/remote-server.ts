import { execa, type ResultPromise } from "execa";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";

const BIN = resolve(import.meta.dirname, "../../bin/ddsctl");

declare module "vitest" {
  export interface ProvidedContext {
    remoteUrl: string;
    remoteDb: string;
  }
}

/**
 * Global set-up of the `remote` test project: one real `ddsctl serve` on a temporary
 * database for the whole run. Each sandbox gets a workspace (and token) of its own, so
 * test files stay as isolated as with a database each.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "ddsctl-remote-"));
  const db = join(dir, "dds.db");
  const server: ResultPromise = execa("node", [BIN, "serve", "--port", "0", "--quiet", "--local", db], { reject: false, env: { NO_COLOR: "1" } });
  const url = await new Promise<string>((ok, fail) => {
    let seen = "";
    const timer = setTimeout(() => fail(new Error(`ddsctl serve did not start: ${seen}`)), 30_000);
    server.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        ok(m[1].replace(/\/v1\/?$/, "/v1"));
      }
    });
  });
  project.provide("remoteUrl", url);
  project.provide("remoteDb", db);
  return async () => {
    server.kill("SIGTERM");
    await server;
    rmSync(dir, { recursive: true, force: true });
  };
}
