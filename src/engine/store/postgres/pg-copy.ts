import type postgres from "postgres";

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * A value in COPY's text format: `\N` for NULL, numbers as written, text with backslash,
 * newline, carriage return and tab escaped (every other character stands for itself).
 */
export function copyValue(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "\\N";
  if (typeof value === "number") return String(value);
  return SPECIAL.test(value) ? value.replace(SPECIALS, (ch) => ESCAPED[ch]) : value;
}

/** Bytes per CopyData message: the server parses each one as it arrives. */
const CHUNK = 64 * 1024;

/** The driver's query object, which holds its own settle functions (not in its types). */
interface QueryInternals {
  reject: (err: unknown) => void;
}

/**
 * Writes rows into `table` with `COPY … FROM STDIN` on `conn`: each line one row in text
 * format, ending in a newline. Settles once the server has answered the COPY. Nothing
 * else may be sent on the connection meanwhile (it is in COPY mode): the caller sees to
 * that.
 */
export async function copyIn(conn: postgres.ReservedSql, table: string, columns: readonly string[], lines: readonly string[]): Promise<void> {
  const query = conn.unsafe(`COPY ${table} (${columns.join(", ")}) FROM STDIN`);
  // An error that ends the COPY once its last message is sent (a unique violation found in
  // the last rows, a lost connection) reaches only the query, whose promise has already
  // resolved to the stream, and the stream never finishes: without this, a failed COPY
  // would leave its caller waiting for ever. The query's own reject is wrapped to hear it.
  const internals = query as unknown as QueryInternals;
  const failed = new Promise<never>((_, reject) => {
    const own = internals.reject;
    internals.reject = (err) => {
      reject(err);
      own(err);
    };
  });
  failed.catch(() => undefined);
  const stream = await query.writable();
  const finished = new Promise<void>((resolve, reject) => {
    stream.once("finish", resolve);
    stream.once("error", reject);
  });
  let chunk = "";
  for (const line of lines) {
    chunk += line;
    if (chunk.length >= CHUNK) {
      stream.write(chunk);
      chunk = "";
    }
  }
  stream.end(chunk);
  await Promise.race([finished, failed]);
}
