/**
 * What a rule sees: the resolved context by dotted path (docs/resources.md, Rules): `Loan.amount`,
 * `Applicant.income`, `Loan.applicants.income`, `Loan`, `context.metadata.region`.
 */
import { FORBIDDEN_SEGMENTS } from "../../../contract/constants.js";
import type { VarResolver } from "../../../portable/json-logic/index.js";
import type { PassInput, PassLink, PassRecord, ResolvedRecord } from "../types.js";
import { compareStrings } from "../../../portable/resolution/candidate.js";
import { createLinkGraph, type LinkGraph } from "./link-graph.js";
import { createModelIndex, type ModelIndex, type ModelInfo } from "./model-index.js";
import { compareRecordAge, hasOwn } from "./record-order.js";
import { relationshipValue, type RecordReader } from "./record-resolver.js";
import { rulePathProblem, type RulePathModel } from "../../../portable/rule-paths.js";
import { pushAll } from "../../../portable/arrays.js";

/**
 * The pass's models as rule paths are checked against (the compiled models: what the
 * pass reads), built at the first read of a pass.
 */
function pathModels(models: ModelIndex): RulePathModel[] {
  return [...models.byId.values()].map(({ model }) => ({
    modelId: model.modelId,
    name: model.name,
    fields: model.fields,
    relationships: model.relationships.map((r) => ({ name: r.name, target: r.targetModelId })),
  }));
}

/** Walks `segments` into JSON through own properties only; undefined when absent. */
function walkOwn(value: unknown, segments: readonly string[]): unknown {
  let current = value;
  for (const s of segments) {
    if (current === null || typeof current !== "object" || !hasOwn(current, s)) return undefined;
    current = (current as Record<string, unknown>)[s];
  }
  return current;
}

function contextValue(context: PassInput["context"], rest: readonly string[]): unknown {
  const whole = { id: context.id, name: context.name, type: context.type, metadata: context.metadata };
  return walkOwn(whole, rest);
}

/** What a rule reads of the records: each model's records, oldest first, and each record's data. */
export interface ContextView {
  ofModel(modelId: string): readonly PassRecord[];
  data(recordId: string): Record<string, unknown> | undefined;
}

interface Snapshot {
  models: ModelIndex;
  graph: LinkGraph;
  reader: RecordReader;
  view: ContextView;
}

/** A model path: the model itself, one of its fields, or a relationship path. */
function modelValue(info: ModelInfo, rest: readonly string[], snap: Snapshot): unknown {
  const records = snap.view.ofModel(info.model.modelId);
  // A singleton has at most one record; should there be more, the oldest speaks for it.
  const singleton = info.model.identity.length === 0;
  const only = records[0];
  if (rest.length === 0) return singleton ? (only ? snap.reader.data(only) : undefined) : records.map(snap.reader.data);
  const field = rest.length === 1 ? info.fieldsByName.get(rest[0]) : undefined;
  if (field) {
    if (singleton) return only ? snap.reader.value(only, field) : undefined;
    return records.map((r) => snap.reader.value(r, field) ?? null);
  }
  const rel = info.relationshipsByName.get(rest[0]);
  if (!rel || rest.length > 2) return undefined;
  const tail = rest.length === 2 ? rest[1] : undefined;
  const through = (r: PassRecord) => relationshipValue(rel, snap.graph.targets(r.id, rel.name), tail, snap.models, snap.reader);
  if (singleton) return only ? through(only) : undefined;
  // Identity models: the values over all source records, flattened, sources oldest first.
  const out: unknown[] = [];
  for (const r of records) {
    const value = through(r);
    if (Array.isArray(value)) pushAll(out, value);
    else if (value !== undefined) out.push(value);
  }
  return out;
}

/**
 * The resolver rules are evaluated with. A singleton model's path gives its record's value
 * (data for the bare model name), an identity model's path the array over its records
 * (oldest first; null where a record has no value), a relationship path reads through
 * the links (flattened over source records for identity models). `context` paths read
 * the context and walk into `metadata`; `context` is reserved and shadows a model of that
 * name. Model names are case-sensitive. A path with a `__proto__`, `constructor` or
 * `prototype` segment gives null; an absent value gives undefined, which `var` turns into
 * null (or its default). A path that names nothing the models have (a field removed or
 * renamed away since the rule was saved, a model never activated) throws, saying what the
 * model has, so the evaluation fails with that `error` rather than reading null. `""`
 * gives the whole context.
 */
export function createContextResolver(
  input: Pick<PassInput, "context" | "models" | "records">,
  records: readonly Pick<ResolvedRecord, "id" | "modelId" | "data">[],
  links: readonly PassLink[],
): VarResolver {
  const passRecords = new Map(input.records.map((r) => [r.id, r]));
  const data = new Map<string, Record<string, unknown>>();
  const byModel = new Map<string, PassRecord[]>();
  for (const r of records) {
    const pass = passRecords.get(r.id);
    if (!pass) continue;
    data.set(r.id, r.data);
    // Appended in place: a copy per record made this quadratic in a context's records.
    let list = byModel.get(r.modelId);
    if (!list) byModel.set(r.modelId, (list = []));
    list.push(pass);
  }
  for (const list of byModel.values()) list.sort(compareRecordAge);
  const graph = createLinkGraph([...passRecords.values()].filter((r) => data.has(r.id)), links);
  const view: ContextView = { ofModel: (modelId) => byModel.get(modelId) ?? [], data: (id) => data.get(id) };
  return contextResolverOver(input.context, createModelIndex(input.models), graph, view);
}

/**
 * {@link createContextResolver} over a view the caller keeps (a pass builds a model's list
 * only when a rule reads it). `read` hears each model a path reads (the head model, and the
 * target of a relationship it goes through), and null for the whole context.
 */
export function contextResolverOver(
  context: PassInput["context"],
  models: ModelIndex,
  graph: LinkGraph,
  view: ContextView,
  read?: (modelId: string | null) => void,
): VarResolver {
  const snap: Snapshot = {
    models,
    graph,
    view,
    reader: {
      data: (r) => view.data(r.id) ?? {},
      value: (r, field) => {
        const row = view.data(r.id);
        return row && hasOwn(row, field.name) ? row[field.name] : undefined;
      },
    },
  };
  const input = { context };
  // Each distinct path is checked once a pass: unknown ones keep their message.
  let known: RulePathModel[] | undefined;
  const checked = new Map<string, string | undefined>();
  const check = (path: string): void => {
    let problem = checked.get(path);
    if (!checked.has(path)) checked.set(path, (problem = rulePathProblem((known ??= pathModels(snap.models)), path)));
    if (problem !== undefined) throw new Error(problem);
  };
  const get = (path: string): unknown => {
    if (path === "") {
      read?.(null);
      const whole: Record<string, unknown> = {};
      const names = [...snap.models.byName.keys()].filter((n) => n !== "context").sort(compareStrings);
      for (const name of names) whole[name] = modelValue(snap.models.byName.get(name)!, [], snap) ?? null;
      whole.context = contextValue(input.context, []);
      return whole;
    }
    const segments = path.split(".");
    if (segments.some((s) => FORBIDDEN_SEGMENTS.has(s))) return null;
    check(path);
    const [head, ...rest] = segments;
    if (head === "context") return contextValue(input.context, rest);
    const info = snap.models.byName.get(head);
    if (!info) return undefined;
    if (read) {
      read(info.model.modelId);
      const rel = rest.length > 0 ? info.relationshipsByName.get(rest[0]) : undefined;
      if (rel) read(rel.targetModelId);
    }
    return modelValue(info, rest, snap);
  };
  return { get };
}
