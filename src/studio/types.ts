import type { IncomingMessage, ServerResponse } from "node:http";

/** Where the studio's `/v1` requests go: the local app, or the remote service. */
export interface ApiBackend {
  /** The target, as the CLI's banner names it. */
  describe: string;
  /** Answers one `/v1/...` request whose session key was already checked (local) or is checked here (remote). */
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
}

/** One `rules test` suite as the studio serves it to the page (`GET /studio/tests.json`). */
export interface StudioSuite {
  name: string;
  file: string;
  /** The rule it tests, by name or ruleId (from `rule: <name>` or the rule file's name); null for an inline expression. */
  rule: string | null;
  /** The cases, as the cases file holds them. */
  cases: { name: string; data?: Record<string, unknown>; context?: string; expect: boolean; expectValues?: Record<string, unknown> }[];
}
