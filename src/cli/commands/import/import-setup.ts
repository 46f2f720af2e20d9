import { existsSync, statSync, unlinkSync } from "node:fs";
import { resolve } from "node:path";
import { errors } from "../../../contract/errors.js";
import type { DdsService } from "../../../contract/service.js";
import { fingerprint, readCheckpoint, verifyCheckpoint, type Checkpoint } from "../../ndjson/checkpoint.js";
import { ledgerPath, LineLedger } from "../../ndjson/line-ledger.js";
import { RejectsWriter } from "../../ndjson/rejects.js";
import { ResumePlan } from "./resume-plan.js";
import { PriorLedger } from "../../ndjson/prior-ledger.js";
import { KINDS, type ImportKind } from "./import-kinds.js";
import { LineClassifier } from "./line-items.js";
import { References } from "./references.js";

/** Everything an import run needs to know (the command turns flags into this). */
export interface ImportOptions {
  kind: ImportKind;
  /** A path, or `-` for stdin. */
  input: string;
  /** Where rejects go (the command always names a file; undefined writes none). */
  rejects: string | undefined;
  /** Where the checkpoint goes; undefined: no checkpoint (stdin without --checkpoint, dry runs). */
  checkpoint: string | undefined;
  resume: boolean;
  maxErrors: number | undefined;
  dryRun: boolean;
  createContexts: boolean;
  concurrency: number;
  maxLineBytes: number;
  /** Where `-` reads from. */
  stdin: NodeJS.ReadableStream;
  /** Aborted on Ctrl-C: the import stops after the batches in flight and checkpoints them. */
  signal?: AbortSignal;
}

/** The state an import starts from. */
export interface ImportStart {
  rejects: RejectsWriter;
  classifier: LineClassifier;
  /** Lines the checkpoint says are done (0 without --resume). */
  skipUntil: number;
  /** The checkpoint's hash of those lines, re-checked while streaming past them (without a plan). */
  expected: { sha256: string; bytes: number } | undefined;
  /**
   * A resume whose checkpoint has a line ledger: the lines it covers are read again and
   * checked line by line (edited rejected lines are sent), and the rejects file is rewritten.
   */
  plan: ResumePlan | undefined;
  /** What becomes of each line, for the next resume (imports that checkpoint). */
  lineLedger: LineLedger | undefined;
  /** A plain rerun of a file an earlier run recorded against this target: what it stored (see PriorLedger). */
  prior: { ledger: PriorLedger; anchor: string } | undefined;
  /** With a plan, the rejects are written beside the rejects file, then put in its place. */
  rejectsPath: string | undefined;
  /** The fields every checkpoint of this run shares. */
  checkpointBase: Pick<Checkpoint, "version" | "kind" | "input" | "lines">;
  /** Size of the input file in bytes (undefined for stdin), for the progress bar. */
  size: number | undefined;
}

/**
 * Reads the checkpoint (with --resume) and checks it belongs to this input, opens the
 * rejects file (continued from the checkpoint, or fresh), and builds the line reader.
 */
export async function setUpImport(service: DdsService, opts: ImportOptions): Promise<ImportStart> {
  // Only a regular file can be fingerprinted: reading a pipe's head would consume it.
  const fp = opts.input !== "-" && statSync(opts.input).isFile() ? fingerprint(opts.input) : undefined;
  const cp = opts.resume && opts.checkpoint ? readCheckpoint(opts.checkpoint) : undefined;
  if (cp) verifyCheckpoint(cp, opts.kind, undefined, opts.checkpoint!);
  const plan = cp && opts.rejects !== undefined ? ResumePlan.open(cp, opts.checkpoint!, opts.rejects) : undefined;
  // With a line ledger the input may have been edited in place; without one it must be the same.
  if (cp && !plan) verifyCheckpoint(cp, opts.kind, fp, opts.checkpoint!);
  // A run that starts over reads what an earlier run of the same file stored (to send none
  // of it again), then drops the old checkpoint before it replaces the rejects file: if it
  // is killed before its own first checkpoint, a later --resume must not skip lines whose
  // rejects are gone.
  const prior = !opts.resume && opts.checkpoint && !opts.dryRun && fp ? await priorRun(service, opts, opts.checkpoint) : undefined;
  if (!opts.resume && opts.checkpoint && !opts.dryRun && existsSync(opts.checkpoint)) unlinkSync(opts.checkpoint);
  const sameRejects = cp?.rejects && opts.rejects !== undefined && resolve(cp.rejects.path) === resolve(opts.rejects);
  let rejects: RejectsWriter | undefined;
  // A plan rewrites the rejects file (keeping the rejects that still hold) beside it, then moves it in place.
  if (plan) rejects = RejectsWriter.fresh(`${opts.rejects}.resume.tmp`);
  else rejects = sameRejects ? RejectsWriter.resume(opts.rejects!, cp!.rejects!.bytes) : RejectsWriter.fresh(opts.rejects);
  if (!rejects) {
    throw errors.usage(`the rejects file ${opts.rejects} is shorter than the checkpoint ${opts.checkpoint} records (${cp!.rejects!.bytes} bytes), so it is not the one that import wrote; delete the checkpoint (or drop --resume) to import from the start`);
  }
  // A resume of an older checkpoint (no ledger) cannot start one: the lines it skips would be missing.
  const tracked = opts.checkpoint !== undefined && !opts.dryRun && (!cp || plan !== undefined);
  const lineLedger = plan ? plan.ledger : tracked ? LineLedger.fresh(ledgerPath(opts.checkpoint!)) : undefined;
  const spec = KINDS[opts.kind];
  const refs = opts.kind === "contributions" ? await References.load(service, { createContexts: opts.createContexts, dryRun: opts.dryRun }) : undefined;
  let dryRun: ConstructorParameters<typeof LineClassifier>[2];
  if (opts.dryRun) {
    // Lazy: zod and the schemas load only for a dry run (a real run lets the service validate).
    const schemas = await import("../../../contract/schemas/index.js");
    const { parseBody } = await import("../../../contract/parse.js");
    dryRun = { schema: schemas[spec.schema], parse: parseBody };
  }
  return {
    rejects,
    classifier: new LineClassifier(spec, refs, dryRun),
    skipUntil: cp?.lastCompletedLine ?? 0,
    expected: cp ? { sha256: cp.prefixSha256, bytes: cp.bytes } : undefined,
    plan,
    prior,
    lineLedger,
    rejectsPath: opts.rejects,
    checkpointBase: {
      version: 1,
      kind: opts.kind,
      input: fp ? { path: resolve(opts.input), ...fp } : { path: "-" },
      ...(lineLedger ? { lines: resolve(lineLedger.path) } : {}),
    },
    size: fp?.size,
  };
}

/**
 * The ledger an earlier run of this file left, if it is to be trusted: the same input
 * path and kind, a ledger covering its checkpoint, and an anchor (something it stored)
 * that the target this run writes to holds. A new or another database, a file imported
 * elsewhere, or a checkpoint of an older ddsctl give none: everything is sent.
 */
async function priorRun(service: DdsService, opts: ImportOptions, checkpoint: string): Promise<ImportStart["prior"]> {
  let cp: Checkpoint | undefined;
  try {
    cp = readCheckpoint(checkpoint);
  } catch {
    return undefined;
  }
  const spec = KINDS[opts.kind];
  if (!cp?.lines || !cp.anchor || !spec.holds || cp.kind !== opts.kind || cp.input.path !== resolve(opts.input)) return undefined;
  if (!(await spec.holds(service, cp.anchor))) return undefined;
  const ledger = PriorLedger.read(cp.lines, cp.lastCompletedLine);
  return ledger ? { ledger, anchor: cp.anchor } : undefined;
}
