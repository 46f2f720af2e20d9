/**
 * `ddsctl studio`: one loopback HTTP server for the page and the REST API of the current
 * target, on the same origin. `/v1/...` goes to the local app (in-process, on the same
 * engine) or to the remote service through the proxy; everything else is the page.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DdsError } from "../contract/errors.js";
import type { LogFn } from "../server/types.js";
import type { AppEnv, WorkerOptions } from "../engine/index.js";
import { allowedHosts, hostNames, refusal } from "./host-check.js";
import { createLocalApi } from "./local-api.js";
import { replyProblem } from "./problem-reply.js";
import { createRemoteProxy } from "./remote-proxy.js";
import { createStaticFiles, defaultAssetsDir } from "./static-files.js";
import type { StudioSuite } from "../portable/workbench/rules-test/studio-suite.js";
import type { ApiBackend } from "./types.js";
import { isSessionKey, newSessionKey } from "./session.js";

/** What the studio serves: a local database or a remote service. */
export type StudioTarget = { mode: "local"; db: string; workspace: string } | { mode: "remote"; baseUrl: string; token?: string };

/** Options of {@link startStudio}. */
export interface StudioOptions {
  target: StudioTarget;
  port: number;
  host?: string;
  /** More names browsers may use in `Host` (`--allow-host`); needed when `host` is a wildcard. */
  allowHosts?: string[];
  /** Background failures (pipeline errors). */
  log: LogFn;
  /** A local target: the environment the application reads (the CLI's; default none). */
  env?: AppEnv;
  /** The built page (default: dist/web). */
  assetsDir?: string;
  /** The session key (default: a new random one; tests pass their own). */
  sessionKey?: string;
  worker?: WorkerOptions;
  /** The `rules test` suites the rule view runs (from `--tests`). */
  tests?: StudioSuite[];
}

/** A running studio. */
export interface RunningStudio {
  /** The URL to open: the page, with the session key in the fragment. */
  url: string;
  /** The origin without the key (for deep links). */
  origin: string;
  target: string;
  close(): Promise<void>;
}

/** Where the page reads the `--tests` suites (the cases files are the author's, not the service's). */
const TESTS_PATH = "/studio/tests.json";

async function backendFor(options: StudioOptions, sessionKey: string): Promise<ApiBackend> {
  const t = options.target;
  if (t.mode === "remote") return createRemoteProxy({ baseUrl: t.baseUrl, token: t.token, sessionKey });
  return createLocalApi({ db: t.db, workspace: t.workspace, sessionKey, env: options.env ?? {}, log: options.log, worker: options.worker });
}

/** Starts the studio on `host:port` (127.0.0.1 by default; port 0 picks a free one). */
export async function startStudio(options: StudioOptions): Promise<RunningStudio> {
  const host = options.host ?? "127.0.0.1";
  // Checked before anything opens: a wildcard without --allow-host is refused here.
  const names = hostNames(host, options.allowHosts);
  const sessionKey = options.sessionKey ?? newSessionKey();
  const files = createStaticFiles(options.assetsDir ?? defaultAssetsDir());
  const api = await backendFor(options, sessionKey);
  const testsBody = JSON.stringify({ suites: options.tests ?? [] });
  const sendTests = (req: IncomingMessage, res: ServerResponse) => {
    const presented = /^Bearer[ \t]+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (!isSessionKey(sessionKey, presented)) return replyProblem(res, new DdsError("unauthorized", "missing or wrong studio session key"));
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(testsBody);
  };
  let hosts = new Set<string>();
  const server: Server = createHttpServer((req, res) => {
    const refused = refusal(req, hosts);
    if (refused) return replyProblem(res, new DdsError("forbidden", refused));
    const path = req.url ?? "/";
    if (path === "/v1" || path.startsWith("/v1/") || path.startsWith("/v1?")) return api.handle(req, res);
    if (path === TESTS_PATH) return sendTests(req, res);
    files(req, res);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", (err: NodeJS.ErrnoException) =>
        reject(new DdsError("unavailable", err.code === "EADDRINUSE" ? `port ${options.port} is taken on ${host}: pick another with --port N (0 picks a free one)` : `cannot listen on ${host}:${options.port}: ${err.message}`)),
      );
      server.listen(options.port, host, () => resolve());
    });
  } catch (err) {
    await api.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(host, port, options.allowHosts);
  // The URL names the first allowed name: the address itself, or the first --allow-host.
  const origin = `http://${names[0]}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/#session=${sessionKey}`,
    origin,
    target: api.describe,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await api.close();
      })()),
  };
}
