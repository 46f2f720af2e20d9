import type { IncomingMessage, ServerResponse } from "node:http";

/** Where the studio's `/v1` requests go: the local app, or the remote service. */
export interface ApiBackend {
  /** The target, as the CLI's banner names it. */
  describe: string;
  /** Answers one `/v1/...` request whose session key was already checked (local) or is checked here (remote). */
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
}
