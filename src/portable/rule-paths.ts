/**
 * What a rule's `var` path names, against the workspace's models: `Loan` (whole records),
 * `Loan.amount` (a field), `Loan.applicants` / `Loan.applicants.income` (through a
 * relationship), `context.type` / `context.metadata.<key>`. The service refuses a rule
 * whose paths name nothing (422 `compile_failed`), the pipeline fails an evaluation that
 * reads such a path (a field removed since), `rules deps` lists what each path reads, and
 * the studio's editor marks the path: one reading of a path for all of them.
 */
import { collectVarReads } from "./json-logic/collect-var-paths.js";
import type { RuleProblem } from "./json-logic/types.js";

/** What a path is checked against: a model's name, fields and relationships (an API model fits). */
export interface RulePathModel {
  modelId: string;
  name: string;
  fields: readonly { name: string; computed?: unknown }[];
  /** `target`: the target model's name or modelId. */
  relationships: readonly { name: string; target: string }[];
}

/** What one path of an expression reads. */
export interface PathRead {
  /** The path as the expression writes it. */
  path: string;
  /** `field`/`computed`: a field; `model`/`relationship`: whole records; `context`: the context; `unknown`: nothing known. */
  kind: "field" | "computed" | "model" | "relationship" | "context" | "unknown";
  /** `Model.field` (or `Model` for whole records; `context.<key>` for context paths). */
  reads: string | null;
  /** The relationship the path goes through (`Loan.applicants`). */
  via?: string;
  /** Why an `unknown` path names nothing, with what there is instead. */
  problem?: string;
}

/** The properties of the context a rule reads (`metadata` is walked into). */
const CONTEXT_KEYS = ["id", "name", "type", "metadata"];

const modelByRef = (models: readonly RulePathModel[], ref: string) =>
  models.find((m) => m.name === ref) ?? models.find((m) => m.modelId === ref || m.modelId === ref.toLowerCase());

const names = (list: readonly { name: string }[]) => (list.length === 0 ? "none" : list.map((x) => x.name).join(", "));

/** What the model does have, for a message: `fields: a, b; relationships: c`. */
function hasList(model: RulePathModel): string {
  return `fields: ${names(model.fields)}; relationships: ${names(model.relationships)}`;
}

function unknown(path: string, problem: string, via?: string): PathRead {
  return { path, kind: "unknown", reads: null, ...(via ? { via } : {}), problem };
}

/**
 * Maps `rest` (a field; or a relationship, then a field of its target) relative to
 * `model`. Rule paths and computed-field paths (which start at their own model) alike.
 */
export function mapWithin(models: readonly RulePathModel[], model: RulePathModel, path: string, rest: readonly string[]): PathRead {
  if (rest.length === 0) return { path, kind: "model", reads: model.name };
  const field = model.fields.find((f) => f.name === rest[0]);
  if (field && rest.length === 1) return { path, kind: field.computed ? "computed" : "field", reads: `${model.name}.${field.name}` };
  const rel = model.relationships.find((r) => r.name === rest[0]);
  if (!rel && field) return unknown(path, `${model.name}.${field.name} is a field: a path ends at a field (${rest.slice(1).join(".")} cannot be read)`);
  if (!rel) return unknown(path, `${model.name} has no field or relationship "${rest[0]}" (${hasList(model)})`);
  const via = `${model.name}.${rel.name}`;
  const target = modelByRef(models, rel.target);
  if (!target) return unknown(path, `the target of ${via}, model "${rel.target}", does not exist`, via);
  if (rest.length === 1) return { path, kind: "relationship", reads: target.name, via };
  const tf = target.fields.find((f) => f.name === rest[1]);
  if (!tf) return unknown(path, `${target.name} (the target of ${via}) has no field "${rest[1]}" (fields: ${names(target.fields)})`, via);
  if (rest.length > 2) return unknown(path, `${target.name}.${tf.name} is a field: a path ends at a field (${rest.slice(2).join(".")} cannot be read)`, via);
  return { path, kind: tf.computed ? "computed" : "field", reads: `${target.name}.${tf.name}`, via };
}

/** What a rule path (`Loan.amount`, `Loan.applicants.income`, `context.type`) reads. */
export function mapRulePath(models: readonly RulePathModel[], path: string): PathRead {
  const [head, ...rest] = path.split(".");
  if (head === "context") {
    if (rest.length === 0 || (CONTEXT_KEYS.includes(rest[0]) && (rest.length === 1 || rest[0] === "metadata"))) return { path, kind: "context", reads: path };
    return unknown(path, `the context has no property "${rest.join(".")}" (it has ${CONTEXT_KEYS.join(", ")}; metadata.<key> reads its metadata)`);
  }
  const model = models.find((m) => m.name === head);
  if (model) return mapWithin(models, model, path, rest);
  const known = models.length === 0 ? "the workspace has no models" : `models: ${names([...models].sort((a, b) => (a.name < b.name ? -1 : 1)))}`;
  return unknown(path, `no model named "${head}" (${known}; names are case-sensitive)`);
}

/**
 * Every static path of a rule expression that names nothing in `models`, one problem per
 * read, placed at the node that reads it (`<=.0.var`, as the compiler places its
 * problems). Computed paths and paths relative to the elements of `all`/`some`/… are not
 * known before the rule runs and are not checked here.
 */
export function checkRulePaths(expression: unknown, models: readonly RulePathModel[]): RuleProblem[] {
  const problems: RuleProblem[] = [];
  for (const read of collectVarReads(expression)) {
    const message = rulePathProblem(models, read.path);
    if (message !== undefined) problems.push({ path: read.at, message });
  }
  return problems;
}

/**
 * Why `path` names nothing in `models` (`"Loan.x": Loan has no field or relationship "x"
 * (fields: …)`), or undefined when it names something: the message the service refuses a
 * rule with and the pipeline fails an evaluation with.
 */
export function rulePathProblem(models: readonly RulePathModel[], path: string): string | undefined {
  const mapped = mapRulePath(models, path);
  return mapped.kind === "unknown" ? `"${path}": ${mapped.problem}` : undefined;
}
