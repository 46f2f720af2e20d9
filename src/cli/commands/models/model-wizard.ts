import { FIELD_TYPES } from "../../../contract/constants.js";
import type { ModelCreate } from "../../../contract/schemas/index.js";
import { loadPrompts } from "../init/interactive.js";

/** One field as the wizard asks for it. */
export interface WizardField {
  name: string;
  type: (typeof FIELD_TYPES)[number];
  required: boolean;
  /** Enum fields: the allowed values. */
  values?: string[];
}

/** Everything the wizard asked. */
export interface WizardAnswers {
  name: string;
  description: string;
  fields: WizardField[];
  /** The identity field's name, or undefined for a singleton model. */
  identity?: string;
}

/** The POST /models body the answers describe (pure, so it is tested without a terminal). */
export function wizardBody(answers: WizardAnswers): ModelCreate {
  const body: ModelCreate = {
    name: answers.name.trim(),
    fields: answers.fields.map((f) => ({
      name: f.name,
      type: f.type,
      ...(f.required ? { required: true } : {}),
      ...(f.type === "enum" ? { validation: { values: f.values ?? [] } } : {}),
    })),
  };
  if (answers.description.trim()) body.description = answers.description.trim();
  if (answers.identity) body.identity = [answers.identity];
  return body;
}

const validName = (taken: Set<string>) => (value: string) => {
  const v = value.trim();
  if (v.includes(".")) return "names are used in dotted paths: no '.'";
  if (taken.has(v)) return `"${v}" is already a field`;
  return true;
};

/** Asks for a model on the terminal: name, description, fields until an empty name, identity. */
export async function askModel(): Promise<WizardAnswers> {
  const { input, select, confirm } = await loadPrompts();
  const name = await input({ message: "Model name", required: true, validate: validName(new Set()) });
  const description = await input({ message: "Description (optional)" });
  const fields: WizardField[] = [];
  for (;;) {
    const taken = new Set(fields.map((f) => f.name));
    const fieldName = (await input({ message: `Field ${fields.length + 1} name (empty to finish)`, validate: (v) => v.trim() === "" || validName(taken)(v) })).trim();
    if (fieldName === "") break;
    const type = await select({ message: `Type of ${fieldName}`, choices: FIELD_TYPES.map((t) => ({ name: t, value: t })) });
    const values =
      type === "enum"
        ? (await input({ message: "Allowed values, comma-separated", required: true })).split(",").map((s) => s.trim()).filter((s) => s.length > 0)
        : undefined;
    const required = await confirm({ message: `Is ${fieldName} required?`, default: false });
    fields.push({ name: fieldName, type, required, values });
  }
  const candidates = fields.filter((f) => f.type !== "json").map((f) => ({ name: f.name, value: f.name }));
  const identity =
    candidates.length === 0
      ? undefined
      : await select<string | undefined>({
          message: "Identity: which field tells records apart within a context?",
          choices: [{ name: "none: a singleton, one record per context", value: undefined }, ...candidates],
        });
  return { name, description, fields, identity };
}
