import type { ServerResponse } from "node:http";
import { DdsError } from "../contract/errors.js";

/** Answers with the problem+json body of a DdsError, as the REST app would. */
export function replyProblem(res: ServerResponse, err: DdsError): void {
  const body = JSON.stringify(err.toProblem());
  const headers: Record<string, string | number> = { "content-type": "application/problem+json", "content-length": Buffer.byteLength(body) };
  if (err.status === 401) headers["www-authenticate"] = 'Bearer realm="ddsctl"';
  res.writeHead(err.status, headers).end(body);
}
