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

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

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

/** The lowercase text of an id's 16 bytes. */
export function idText(b: Uint8Array): string {
  const h = HEX;
  return (
    h[b[0]] + h[b[1]] + h[b[2]] + h[b[3]] + "-" + h[b[4]] + h[b[5]] + "-" + h[b[6]] + h[b[7]] + "-" + h[b[8]] + h[b[9]] + "-" +
    h[b[10]] + h[b[11]] + h[b[12]] + h[b[13]] + h[b[14]] + h[b[15]]
  );
}

/** A new lowercase, time-ordered UUID (version 7), as docs/rest-api.md asks for every id. */
export function newId(): string {
  return idText(newIdBytes());
}
