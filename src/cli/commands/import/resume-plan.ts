import { errors } from "../../../contract/errors.js";
import type { Checkpoint } from "../../ndjson/checkpoint.js";
import { LineLedger, lineHash, type LineMark } from "../../ndjson/line-ledger.js";
import type { SplitLine } from "../../ndjson/line-splitter.js";
import { PriorRejects } from "../../ndjson/prior-rejects.js";

/**
 * What a resume does with a line its checkpoint covers: nothing (`done`: as it was),
 * send it (`again`: it failed, or was skipped, and reads differently now, as a line
 * fixed in place after a --max-errors stop does), or report it (`changed`: it was stored
 * and has been edited since; sending it again would add its evidence twice).
 */
export type PriorDecision = "done" | "again" | "changed";

/** Lines read from the ledger at a time when the resume checks it against the rejects file. */
const CHECK_LINES = 10_000;

/**
 * The part of the input a checkpoint with a line ledger covers: a resume reads it again,
 * line by line, against the ledger, instead of requiring it unchanged.
 */
export class ResumePlan {
  private constructor(
    /** The last line the checkpoint covers. */
    readonly through: number,
    readonly ledger: LineLedger,
    /** The earlier run's rejects of those lines (the resume rewrites the file). */
    readonly prior: PriorRejects,
  ) {}

  /**
   * The plan of a checkpoint that has a ledger, or undefined (an older checkpoint, or its
   * ledger is gone): then the input must be as it was. A rejects file that lacks a reject
   * the ledger records is refused: it is not the one that import wrote.
   */
  static open(cp: Checkpoint, checkpointPath: string, rejectsPath: string | undefined): ResumePlan | undefined {
    const ledger = cp.lines ? LineLedger.resume(cp.lines, cp.lastCompletedLine) : undefined;
    if (!ledger) return undefined;
    const source = cp.rejects?.path ?? rejectsPath;
    const prior = PriorRejects.scan(source ?? "", cp.lastCompletedLine);
    for (let first = 1; first <= cp.lastCompletedLine; first += CHECK_LINES) {
      const marks = ledger.read(first, Math.min(cp.lastCompletedLine, first + CHECK_LINES - 1));
      const missing = marks.findIndex((m, i) => m.status === "rejected" && !prior.inputHashes.has(first + i));
      if (missing >= 0) {
        ledger.close();
        throw errors.usage(
          `the rejects file ${source} is shorter than the checkpoint ${checkpointPath} records (${cp.rejects?.bytes ?? 0} bytes): it lacks the reject of line ${first + missing}, so it is not the one that import wrote; delete the checkpoint (or drop --resume) to import from the start`,
        );
      }
    }
    return new ResumePlan(cp.lastCompletedLine, ledger, prior);
  }

  /** The ledger's marks of the covered lines among `first`..`last`. */
  marks(first: number, last: number): LineMark[] {
    return first > this.through ? [] : this.ledger.read(first, Math.min(last, this.through));
  }

  /** What to do with a covered line, given its mark. */
  decide(line: SplitLine, mark: LineMark): PriorDecision {
    const same = lineHash(line) === mark.hash;
    if (mark.status === "stored") return same ? "done" : "changed";
    if (mark.status === "skipped") return same ? "done" : "again";
    // A reject that shows other input than the ledger records was left by a resume cut short
    // after it sent the line again: send it once more (its key replays), for its current reject.
    const shown = this.prior.inputHashes.get(line.no);
    return same && (shown === null || shown === mark.hash) ? "done" : "again";
  }

  close(): void {
    this.prior.close();
    this.ledger.close();
  }
}
