import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { errors } from "../contract/errors.js";
import type { Env } from "./core/io.js";

/** A saved target: a local database or a remote service. */
export type Profile = { mode: "local"; db: string; workspace?: string } | { mode: "remote"; baseUrl: string; token?: string };

/** `~/.config/ddsctl/config.json`. */
export interface Config {
  current?: string;
  profiles: Record<string, Profile>;
}

/** Path of the config file (`XDG_CONFIG_HOME` honoured). */
export function configPath(env: Env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "ddsctl", "config.json");
}

/** Reads the config; a missing file is an empty config, a corrupt one a clear error. */
export function readConfig(env: Env): Config {
  const path = configPath(env);
  if (!existsSync(path)) return { profiles: {} };
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<Config>;
    return { current: parsed.current, profiles: parsed.profiles ?? {} };
  } catch (err) {
    throw errors.usage(`cannot read ${path}: ${(err as Error).message}; fix or remove the file`);
  }
}

/** Writes the config atomically with mode 0600 (it may hold tokens). */
export function writeConfig(env: Env, config: Config): void {
  const path = configPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
  chmodSync(path, 0o600);
}
