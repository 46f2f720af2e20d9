import { SOURCE_TYPES } from "../../../contract/constants.js";
import { errors } from "../../../contract/errors.js";
import type { DdsService } from "../../../contract/service.js";
import { fieldTypes, parsePairs } from "../../document-input.js";
import type { StringArg, StringsArg } from "../../core/args.js";
import { refFlags } from "../../core/shared-args.js";
import { idRef, resolveRef } from "../../../portable/names/resolve-ref.js";

/** The friendly flags of `contributions add`, beside `-f`. */
export const contributionArgs = {
  context: { ...refFlags.context, description: "the context the evidence is about (name or contextId)" },
  model: refFlags.model,
  sourceId: { type: "string", placeholder: "id", description: "stable id of the source (a later contribution with the same one supersedes this)" } satisfies StringArg,
  sourceType: { type: "string", placeholder: "type", description: SOURCE_TYPES.join(", ") } satisfies StringArg,
  data: { type: "strings", placeholder: "field=value", description: "a field value (repeatable; JSON values allowed; text fields take the text as written)" } satisfies StringsArg,
  confidence: { type: "strings", placeholder: "field=0.9", description: "confidence of one field, 0..1 (repeatable; default 1.0)" } satisfies StringsArg,
  record: { type: "string", placeholder: "recordId", description: "bind to this record instead of by identity" } satisfies StringArg,
  observedAt: { type: "string", placeholder: "timestamp", description: "when the source observed the data (ISO 8601)" } satisfies StringArg,
};

/** The values of those flags. */
export interface ContributionFlags {
  context?: string;
  model?: string;
  sourceId?: string;
  sourceType?: string;
  data: string[];
  confidence: string[];
  record?: string;
  observedAt?: string;
}

/** Top-level body properties given as flags (undefined when not given), names resolved to ids. */
export async function contributionFlagValues(service: DdsService, flags: ContributionFlags): Promise<Record<string, unknown>> {
  const confidences = parsePairs(flags.confidence, "--confidence");
  for (const [k, v] of Object.entries(confidences ?? {})) {
    if (typeof v !== "number") throw errors.usage(`--confidence ${k}=${String(v)} must be a number from 0 to 1`);
  }
  const modelId = flags.model ? await resolveRef(service, "model", flags.model) : undefined;
  // `--data applicantId=123` on a string field means the text "123": read the field types.
  const types = modelId && flags.data.length > 0 ? fieldTypes(await service.getModel(modelId)) : undefined;
  return {
    contextId: flags.context ? await resolveRef(service, "context", flags.context) : undefined,
    modelId,
    sourceId: flags.sourceId,
    sourceType: flags.sourceType,
    recordId: flags.record === undefined ? undefined : idRef("record", flags.record),
    observedAt: flags.observedAt,
    data: parsePairs(flags.data, "--data", types),
    fieldConfidences: confidences,
  };
}

/** Without `-f`, the required flags must all be there: say which are missing. */
export function requireContributionFlags(flags: ContributionFlags): void {
  const missing: string[] = [];
  if (flags.context === undefined) missing.push("--context <context>");
  if (flags.model === undefined) missing.push("--model <model>");
  if (flags.sourceId === undefined) missing.push("--source-id <id>");
  if (flags.sourceType === undefined) missing.push("--source-type <type>");
  if (flags.data.length === 0) missing.push("--data <field=value>");
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
