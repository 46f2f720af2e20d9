import type { ProblemDetail } from "../../contract/errors.js";
import type { FieldInput, RelationshipDecl } from "../../contract/schemas/index.js";
import { checkFieldDefinition } from "./field-definition.js";
import { pushAll } from "../../portable/arrays.js";

/** The parts of a model definition that can be checked without other models. */
export interface DefinitionShape {
  fields: FieldInput[];
  identity: string[];
  relationships: RelationshipDecl[];
}

/**
 * Checks a whole model definition: every field, unique names, identity fields that exist
 * and are not computed, relationship names unique and distinct from field names, and
 * `match.sourceField` naming a field of this model. Returns every problem found.
 */
export function checkModelDefinition(def: DefinitionShape): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const byName = new Map<string, FieldInput>();
  def.fields.forEach((f, i) => {
    if (byName.has(f.name)) problems.push({ path: `fields.${i}.name`, message: `duplicate field name "${f.name}"` });
    byName.set(f.name, f);
    pushAll(problems, checkFieldDefinition(f, `fields.${i}`));
  });
  const seenIdentity = new Set<string>();
  def.identity.forEach((name, i) => {
    const f = byName.get(name);
    if (!f) problems.push({ path: `identity.${i}`, message: `identity field "${name}" is not a field of the model` });
    else if (f.computed) problems.push({ path: `identity.${i}`, message: `identity field "${name}" is computed; identity needs contributed values` });
    else if (f.type === "json") problems.push({ path: `identity.${i}`, message: `identity field "${name}" is of type json; use a scalar type` });
    if (seenIdentity.has(name)) problems.push({ path: `identity.${i}`, message: `"${name}" is listed twice` });
    seenIdentity.add(name);
  });
  const relNames = new Set<string>();
  def.relationships.forEach((r, i) => {
    if (relNames.has(r.name)) problems.push({ path: `relationships.${i}.name`, message: `duplicate relationship name "${r.name}"` });
    relNames.add(r.name);
    if (byName.has(r.name)) {
      problems.push({ path: `relationships.${i}.name`, message: `"${r.name}" is also a field name; paths would be ambiguous` });
    }
    if (r.match && !byName.has(r.match.sourceField)) {
      problems.push({ path: `relationships.${i}.match.sourceField`, message: `"${r.match.sourceField}" is not a field of the model` });
    }
  });
  return problems;
}
