import { randomFillSync } from "node:crypto";

/**
 * UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, the version, a 12-bit counter that
 * keeps ids made in the same millisecond in order (method 1 of the RFC: it starts at a
 * random value in the lower half each millisecond, and a counter that runs out moves
 * the clock on by one), the variant and 62 random bits. Ids made by one process sort in
 * the order they were made; their random bits come from a pool refilled 4 KB at a time
 * (an import makes two ids a line).
 */
const pool = Buffer.allocUnsafe(4096);
let poolAt = pool.length;
let lastMs = 0;
let counter = 0;

const HEX_DIGITS = Buffer.from("0123456789abcdef", "latin1");
/** Where an id's text is written before it becomes a string. */
const text = Buffer.allocUnsafe(36);

function random(n: number): number {
  if (poolAt + n > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += n;
  return at;
}

/** A new id's 16 bytes. */
export function newIdBytes(): Buffer {
  let ms = Date.now();
  if (ms > lastMs) {
    const r = random(2);
    counter = ((pool[r] << 8) | pool[r + 1]) & 0x7ff;
    lastMs = ms;
  } else {
    counter++;
    if (counter > 0xfff) {
      lastMs++;
      counter = 0;
    }
    ms = lastMs;
  }
  const b = Buffer.allocUnsafe(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | (counter >> 8);
  b[7] = counter & 0xff;
  const r = random(8);
  b[8] = 0x80 | (pool[r] & 0x3f);
  for (let i = 1; i < 8; i++) b[8 + i] = pool[r + i];
  return b;
}

/**
 * The lowercase text of an id's 16 bytes. Written into a buffer and read out as one flat
 * string: concatenating the hex pairs made a rope of about 500 bytes (see flat-string.ts),
 * and an import holds two ids a line until its write group ends.
 */
export function idText(b: Uint8Array): string {
  let o = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[o++] = 0x2d;
    text[o++] = HEX_DIGITS[b[i] >> 4];
    text[o++] = HEX_DIGITS[b[i] & 15];
  }
  return text.toString("latin1", 0, 36);
}

/** A new lowercase, time-ordered UUID (version 7), as docs/rest-api.md asks for every id. */
export function newId(): string {
  return idText(newIdBytes());
}
