import type { Command } from "commander";
import { errors } from "../../../contract/errors.js";
import type { DdsService } from "../../../contract/service.js";
import { parsePairs } from "../../body.js";
import { resolveModelId } from "../../resolve.js";

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** The friendly flags of `contributions add`, beside `-f`. */
export function withContributionFlags(cmd: Command): Command {
  return cmd
    .option("--context <contextId>", "the context the evidence is about")
    .option("--model <model>", "model name or modelId")
    .option("--source-id <id>", "stable id of the source (a later contribution with the same one supersedes this)")
    .option("--source-type <type>", "document, integration, user, manual or system")
    .option("--data <field=value>", "a field value (repeatable; JSON values allowed)", collect)
    .option("--confidence <field=0.9>", "confidence of one field, 0..1 (repeatable; default 1.0)", collect)
    .option("--record <recordId>", "bind to this record instead of by identity")
    .option("--observed-at <timestamp>", "when the source observed the data (ISO 8601)");
}

/** Top-level body properties given as flags (undefined when not given). */
export async function contributionFlagValues(service: DdsService, flags: Record<string, unknown>): Promise<Record<string, unknown>> {
  const confidences = parsePairs(flags.confidence as string[] | undefined, "--confidence");
  for (const [k, v] of Object.entries(confidences ?? {})) {
    if (typeof v !== "number") throw errors.usage(`--confidence ${k}=${String(v)} must be a number from 0 to 1`);
  }
  return {
    contextId: flags.context,
    modelId: flags.model ? await resolveModelId(service, flags.model as string) : undefined,
    sourceId: flags.sourceId,
    sourceType: flags.sourceType,
    recordId: flags.record,
    observedAt: flags.observedAt,
    data: parsePairs(flags.data as string[] | undefined, "--data"),
    fieldConfidences: confidences,
  };
}

/** Without `-f`, the required flags must all be there: say which are missing. */
export function requireContributionFlags(flags: Record<string, unknown>): void {
  const missing = (
    [
      ["context", "--context <contextId>"],
      ["model", "--model <model>"],
      ["sourceId", "--source-id <id>"],
      ["sourceType", "--source-type <type>"],
      ["data", "--data <field=value>"],
    ] as const
  )
    .filter(([k]) => flags[k] === undefined)
    .map(([, f]) => f);
  if (missing.length > 0) throw errors.usage(`missing ${missing.join(", ")} (or give the body with -f <file|->)`);
}

/**
 * Fills bulk items from the flags: an item keeps its own properties and takes the flag's
 * value only where it has none (`--context` for a file of items without contextId).
 */
export function withDefaults(items: unknown[], values: Record<string, unknown>): unknown[] {
  if (values.data !== undefined || values.fieldConfidences !== undefined) {
    throw errors.usage("--data and --confidence apply to one contribution; with a bulk file put them in each item");
  }
  const defaults = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  if (Object.keys(defaults).length === 0) return items;
  return items.map((item) => (item !== null && typeof item === "object" && !Array.isArray(item) ? { ...defaults, ...item } : item));
}
