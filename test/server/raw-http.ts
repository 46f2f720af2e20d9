import { connect } from "node:net";

/** What came back on a raw connection: the status line, headers and body, as sent. */
export interface RawReply {
  /** Everything received until the server closed (or `untilClose` was false and a reply was complete). */
  raw: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits the first HTTP/1.1 answer of a raw byte stream. */
export function parseRawReply(raw: string): RawReply {
  const end = raw.indexOf("\r\n\r\n");
  const head = end < 0 ? raw : raw.slice(0, end);
  const [statusLine, ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  let body = end < 0 ? "" : raw.slice(end + 4);
  if (headers["content-length"] !== undefined) body = body.slice(0, Number(headers["content-length"]));
  return { raw, status, headers, body };
}

/**
 * Sends bytes exactly as given on a fresh TCP connection and collects the answer until
 * the server closes the connection, or (keep-alive servers) until one complete answer with
 * a Content-Length has arrived, then closes. `then` may send more after the first bytes.
 */
export function rawRequest(port: number, bytes: string | Buffer, options: { then?: (write: (b: string) => void) => void } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let raw = "";
    const done = () => resolve(parseRawReply(raw));
    socket.on("data", (d) => {
      raw += d.toString("latin1");
      const reply = parseRawReply(raw);
      const length = reply.headers["content-length"];
      if (reply.status > 0 && length !== undefined && Buffer.byteLength(reply.body, "latin1") >= Number(length)) socket.destroy();
    });
    socket.on("close", done);
    socket.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNRESET" || err.code === "EPIPE" ? undefined : reject(err)));
    socket.write(bytes);
    options.then?.((b) => socket.write(b));
  });
}
