import { finished } from "node:stream/promises";
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

/**
 * Writes rows into `table` with `COPY … FROM STDIN` on `conn`: each line one row in text
 * format, ending in a newline. Nothing else may be sent on the connection until this
 * settles (it is in COPY mode meanwhile): the caller sees to that.
 */
export async function copyIn(conn: postgres.ReservedSql, table: string, columns: readonly string[], lines: readonly string[]): Promise<void> {
  const stream = await conn.unsafe(`COPY ${table} (${columns.join(", ")}) FROM STDIN`).writable();
  let chunk = "";
  for (const line of lines) {
    chunk += line;
    if (chunk.length >= CHUNK) {
      stream.write(chunk);
      chunk = "";
    }
  }
  stream.end(chunk);
  // Settles once the server has answered the COPY (or failed it).
  await finished(stream);
}
