/**
 * Test inputs for the pipeline stages: a small mortgage case (a Loan singleton, Applicants
 * by `applicantId`, Employments linked to their Applicant by `applicantId`, and
 * `Loan.applicants` to every Applicant), built from stored definitions through the real
 * model compiler so the computed dependencies are the ones activation produces.
 */
import type { FieldInput, RelationshipDecl } from "../../../src/contract/schemas/index.js";
import { compileModel } from "../../../src/engine/models/model-compile.js";
import type { CompiledField, CompiledModel, StoredField, StoredModel } from "../../../src/engine/models/model-types.js";
import type { PassContribution, PassInput, PassRecord, PassRule } from "../../../src/engine/pipeline/types.js";

/** A deterministic lowercase UUID-shaped id: `group` picks the kind, `n` the item. */
export function uuid(group: number, n: number): string {
  return `${String(group).padStart(8, "0")}-0000-7000-8000-${String(n).padStart(12, "0")}`;
}

/** An ISO timestamp `minutes` after 2026-01-01T00:00Z. */
export function at(minutes: number): string {
  return new Date(Date.UTC(2026, 0, 1) + minutes * 60_000).toISOString();
}

/** Overrides of {@link compiledField}; `resolution` is merged over the defaults. */
export type FieldOverrides = Omit<Partial<CompiledField>, "resolution"> & { resolution?: Partial<CompiledField["resolution"]> };

/** A compiled field with defaults (for resolveField / validateValues tests). */
export function compiledField(over: FieldOverrides = {}): CompiledField {
  const { resolution, ...rest } = over;
  return {
    fieldId: uuid(99, 1),
    name: "amount",
    type: "number",
    required: false,
    validation: null,
    computed: null,
    ...rest,
    resolution: { policy: "highest_confidence", minConfidence: 0, ...resolution },
  };
}

/** A stored model built from REST-style field inputs; field ids are `uuid(group, position)`. */
export function storedModel(spec: {
  id: string;
  name: string;
  group: number;
  identity?: string[];
  fields: FieldInput[];
  relationships?: RelationshipDecl[];
}): StoredModel {
  const fields: StoredField[] = spec.fields.map((f, i) => ({
    key: spec.group * 100 + i + 1,
    id: uuid(spec.group, i + 1),
    modelId: spec.id,
    name: f.name,
    type: f.type,
    description: "",
    required: f.required ?? false,
    validation: f.validation ?? null,
    resolution: f.resolution ?? null,
    computed: f.computed ?? null,
    position: i,
    createdAt: at(0),
    updatedAt: at(0),
  }));
  const identity = (spec.identity ?? []).map((name) => fields.find((f) => f.name === name)!.id);
  return {
    key: spec.group,
    id: spec.id,
    name: spec.name,
    description: "",
    status: "active",
    version: 1,
    identity,
    relationships: spec.relationships ?? [],
    fields,
    createdAt: at(0),
    updatedAt: at(0),
  };
}

/** Compiles every model against the others, failing the test on any problem. */
export function compileAll(models: StoredModel[]): CompiledModel[] {
  return models.map((m) => {
    const { compiled, problems } = compileModel(m, models);
    if (!compiled) throw new Error(`fixture model ${m.name} does not compile: ${JSON.stringify(problems)}`);
    return compiled;
  });
}

/** Model ids of the mortgage case. */
export const MODEL = { loan: uuid(1, 1), applicant: uuid(1, 2), employment: uuid(1, 3) } as const;

/** The stored mortgage models (edit a copy to vary a definition). */
export function mortgageStoredModels(): StoredModel[] {
  const loan = storedModel({
    id: MODEL.loan,
    name: "Loan",
    group: 2,
    fields: [
      { name: "amount", type: "number", required: true, validation: { min: 1000 } },
      { name: "debt", type: "number" },
      { name: "purpose", type: "enum", validation: { values: ["purchase", "refinance"] } },
      { name: "closingDate", type: "date", resolution: { policy: "latest" } },
      { name: "dti", type: "number", computed: { expression: { "/": [{ var: "debt" }, { sum: { var: "applicants.totalIncome" } }] } } },
    ],
    relationships: [{ name: "applicants", target: "Applicant", cardinality: "many" }],
  });
  const applicant = storedModel({
    id: MODEL.applicant,
    name: "Applicant",
    group: 3,
    identity: ["applicantId"],
    fields: [
      { name: "applicantId", type: "string", required: true },
      { name: "name", type: "string", validation: { minLength: 2, maxLength: 50 } },
      { name: "creditScore", type: "integer", validation: { min: 300, max: 850 }, resolution: { policy: "min" } },
      { name: "totalIncome", type: "number", computed: { expression: { sum: { var: "employments.monthlyIncome" } } } },
    ],
    relationships: [
      { name: "employments", target: "Employment", cardinality: "many", match: { sourceField: "applicantId", targetField: "applicantId" } },
    ],
  });
  const employment = storedModel({
    id: MODEL.employment,
    name: "Employment",
    group: 4,
    identity: ["employmentId"],
    fields: [
      { name: "employmentId", type: "string", required: true },
      { name: "applicantId", type: "string" },
      { name: "employer", type: "string", resolution: { policy: "majority" } },
      { name: "annualSalary", type: "number", resolution: { policy: "source_priority", sourcePriority: ["document", "integration"] } },
      { name: "monthlyIncome", type: "number", computed: { expression: { "/": [{ var: "annualSalary" }, 12] } } },
    ],
  });
  return [loan, applicant, employment];
}

/** The compiled mortgage models: `[Loan, Applicant, Employment]`. */
export function mortgageModels(stored = mortgageStoredModels()): CompiledModel[] {
  return compileAll(stored);
}

/** The fieldId of `name` in `model`. */
export function fid(model: CompiledModel, name: string): string {
  const field = model.fields.find((f) => f.name === name);
  if (!field) throw new Error(`no field ${name} in ${model.name}`);
  return field.fieldId;
}

/** A record as a pass sees it. */
export function passRecord(id: string, modelId: string, identity: unknown[] | null, createdAt = at(0)): PassRecord {
  return { id, modelId, identityKey: identity === null ? null : JSON.stringify(identity), createdAt };
}

let contributionSeq = 0;

/** A contribution whose data and confidences are given by field NAME (mapped to ids). */
export function contributeTo(
  model: CompiledModel,
  recordId: string,
  byName: Record<string, unknown>,
  over: Partial<Omit<PassContribution, "data" | "confidences">> & { confidences?: Record<string, number> } = {},
): PassContribution {
  const { confidences = {}, ...rest } = over;
  const toIds = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [fid(model, k), v]));
  contributionSeq += 1;
  return {
    id: uuid(90, contributionSeq),
    recordId,
    modelId: model.modelId,
    sourceId: `src-${contributionSeq}`,
    sourceType: "document",
    data: toIds(byName),
    confidences: toIds(confidences) as Record<string, number>,
    receivedAt: at(contributionSeq),
    observedAt: null,
    ...rest,
  };
}

/** Record ids of the mortgage case. */
export const REC = {
  loan: uuid(50, 1),
  a1: uuid(51, 1),
  a2: uuid(51, 2),
  e1: uuid(52, 1),
  e2: uuid(52, 2),
  e3: uuid(52, 3),
} as const;

/** Rules of the mortgage case, by id `uuid(70, n)`. */
export function mortgageRules(): PassRule[] {
  const rule = (n: number, name: string, expression: unknown): PassRule => ({ id: uuid(70, n), name, version: 1, expression });
  return [
    rule(1, "amount-positive", { ">": [{ var: "Loan.amount" }, 0] }),
    rule(2, "dti-under-43", { "<=": [{ var: "Loan.dti" }, 0.43] }),
    rule(3, "every-applicant-earns", { all: [{ var: "Applicant.totalIncome" }, { ">": [{ var: "" }, 0] }] }),
    rule(4, "is-mortgage", { "==": [{ var: "context.type" }, "mortgage"] }),
    rule(5, "west-region", { "==": [{ var: "context.metadata.region" }, "west"] }),
    rule(6, "has-employment", { ">=": [{ count: { var: "Employment" } }, 1] }),
    rule(7, "income-over-5000", { ">": [{ sum: { var: "Loan.applicants.totalIncome" } }, 5000] }),
    rule(8, "credit-at-least-650", { ">=": [{ min: { var: "Applicant.creditScore" } }, 650] }),
  ];
}

/**
 * The whole mortgage context: one Loan, Applicants A1 and A2, Employments E1 and E2 (A1)
 * and E3 (A2), with competing contributions on several fields.
 */
export function mortgageInput(models = mortgageModels()): PassInput {
  const [loan, applicant, employment] = models;
  contributionSeq = 0;
  const contributions: PassContribution[] = [
    contributeTo(loan, REC.loan, { amount: 300000, debt: 2000, purpose: "purchase", closingDate: "2026-03-01" }),
    contributeTo(loan, REC.loan, { amount: 310000, closingDate: "2026-03-15" }, { sourceType: "user", confidences: { amount: 0.6 } }),
    contributeTo(applicant, REC.a1, { applicantId: "A1", name: "Ada", creditScore: 720 }),
    contributeTo(applicant, REC.a1, { creditScore: 700 }, { sourceType: "integration" }),
    contributeTo(applicant, REC.a2, { applicantId: "A2", name: "Grace", creditScore: 680 }),
    contributeTo(employment, REC.e1, { employmentId: "E1", applicantId: "A1", employer: "Acme", annualSalary: 60000 }),
    contributeTo(employment, REC.e1, { employer: "ACME Corp", annualSalary: 62000 }, { sourceType: "integration", confidences: { employer: 0.4 } }),
    contributeTo(employment, REC.e2, { employmentId: "E2", applicantId: "A1", employer: "Initech", annualSalary: 24000 }),
    contributeTo(employment, REC.e3, { employmentId: "E3", applicantId: "A2", employer: "Globex", annualSalary: 48000 }),
  ];
  return {
    context: { id: uuid(40, 1), name: "Smith purchase", type: "mortgage", metadata: { region: "west", branch: { code: "W1" } } },
    models,
    records: [
      passRecord(REC.loan, MODEL.loan, null, at(0)),
      passRecord(REC.a1, MODEL.applicant, ["A1"], at(1)),
      passRecord(REC.a2, MODEL.applicant, ["A2"], at(2)),
      passRecord(REC.e1, MODEL.employment, ["E1"], at(3)),
      passRecord(REC.e2, MODEL.employment, ["E2"], at(4)),
      passRecord(REC.e3, MODEL.employment, ["E3"], at(5)),
    ],
    contributions,
    removals: [],
    rules: mortgageRules(),
  };
}
