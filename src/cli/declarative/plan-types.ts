import type { ContributionCreate, FieldInput, ModelCreate, ModelPatch, RulePatch } from "../../contract/schemas/index.js";
import type { ContextDocument, ModelDocument, RuleDocument } from "./document-schema.js";

/** What apply does to one document's resource. */
export type PlanAction = "create" | "update" | "unchanged";

/** One difference between a document and the stored resource, for `--diff`. */
export interface PlanChange {
  /** Dotted property path, e.g. `severity` or `fields.amount`. */
  path: string;
  op: "add" | "remove" | "change";
  from?: unknown;
  to?: unknown;
}

/** The plan of one document: what happens and why, as `--json` prints it. */
export interface PlanItem {
  kind: "Model" | "Rule" | "Context";
  name: string;
  /** `file: document N`. */
  source: string;
  action: PlanAction;
  /** The stored resource's id (after a create: the new id; absent in a dry run). */
  id?: string;
  changes: PlanChange[];
  /** Context documents: contributions to add and those already present. */
  contributions?: { add: number; present: number };
}

/** The writes one Model document needs. */
export interface ModelSteps {
  doc: ModelDocument;
  item: PlanItem;
  create?: ModelCreate;
  patch?: ModelPatch;
  addFields: FieldInput[];
  replaceFields: FieldInput[];
  removeFields: string[];
  /** Names of the stored model's computed fields (they are removed before plain ones). */
  storedComputed: string[];
  activate: boolean;
}

/** The writes one Rule document needs. */
export interface RuleSteps {
  doc: RuleDocument;
  item: PlanItem;
  create?: RuleDocument;
  patch?: RulePatch;
  status?: "active" | "inactive";
}

/** A contribution to add, without the ids that are only known once models and contexts exist. */
export type PendingContribution = Omit<ContributionCreate, "contextId" | "modelId"> & { model: string; index: number };

/** The writes one Context document needs. */
export interface ContextSteps {
  doc: ContextDocument;
  item: PlanItem;
  create: boolean;
  patch?: { type?: string | null; metadata?: Record<string, unknown> };
  add: PendingContribution[];
}

/** Everything apply will do, in the order it does it. */
export interface Plan {
  models: ModelSteps[];
  rules: RuleSteps[];
  contexts: ContextSteps[];
  /** Model names in the order to activate them (relationship targets first). */
  activation: string[];
  /** Ids of the models the service already holds, by name (contributions may name any). */
  storedModelIds: Map<string, string>;
}
