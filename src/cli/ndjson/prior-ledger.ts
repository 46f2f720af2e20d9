import { readFileSync } from "node:fs";
import { type LineMark, type LineStatus } from "./line-ledger.js";

const BYTE_STATUS: (LineStatus | undefined)[] = [undefined, "stored", "rejected", "skipped"];
/** Bytes per line of a ledger file (line-ledger.ts). */
const ENTRY = 5;

/**
 * What an earlier run of the same file recorded of its lines (its line ledger, read whole
 * before the new run replaces it): a plain rerun does not send again a line that run
 * stored and that reads as it did, so a file whose rejected lines were fixed in place is
 * sent again as exactly those lines, whatever its batches' keys (docs/imports.md).
 */
export class PriorLedger {
  private constructor(
    /** The last line the earlier run's checkpoint covers. */
    readonly through: number,
    private readonly entries: Buffer,
  ) {}

  /** The ledger file's marks through `through`; undefined when it is missing, short or damaged. */
  static read(path: string, through: number): PriorLedger | undefined {
    let entries: Buffer;
    try {
      entries = readFileSync(path);
    } catch {
      return undefined;
    }
    if (entries.length < through * ENTRY) return undefined;
    return new PriorLedger(through, entries.subarray(0, through * ENTRY));
  }

  /** The earlier run's mark of line `no`, if it covers it. */
  mark(no: number): LineMark | undefined {
    if (no < 1 || no > this.through) return undefined;
    const at = (no - 1) * ENTRY;
    const status = BYTE_STATUS[this.entries[at]];
    return status ? { status, hash: this.entries.readUInt32LE(at + 1) } : undefined;
  }
}
