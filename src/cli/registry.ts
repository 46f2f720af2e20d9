import type { CommandSpec } from "./command.js";
import contextsCreate from "./commands/contexts/create.js";
import contextsDelete from "./commands/contexts/delete.js";
import contextsGet from "./commands/contexts/get.js";
import contextsList from "./commands/contexts/list.js";
import contextsStatus from "./commands/contexts/status.js";
import contextsUpdate from "./commands/contexts/update.js";
import fieldsAdd from "./commands/fields/add.js";
import fieldsDelete from "./commands/fields/delete.js";
import fieldsGet from "./commands/fields/get.js";
import fieldsList from "./commands/fields/list.js";
import fieldsUpdate from "./commands/fields/update.js";
import modelsCreate from "./commands/models/create.js";
import modelsDelete from "./commands/models/delete.js";
import modelsGet from "./commands/models/get.js";
import modelsList from "./commands/models/list.js";
import modelsStatus from "./commands/models/status.js";
import modelsUpdate from "./commands/models/update.js";

/** Descriptions of the command groups. */
export const NOUNS: Record<string, string> = {
  models: "models: schemas with fields, identity and relationships",
  fields: "fields of models, by model and name or by fieldId",
  contexts: "decisioning contexts: the boundary around one decision",
};

/** Every command, in the order --help lists them. */
export const COMMANDS: CommandSpec[] = [
  modelsCreate,
  modelsList,
  modelsGet,
  modelsUpdate,
  modelsStatus,
  modelsDelete,
  fieldsList,
  fieldsGet,
  fieldsAdd,
  fieldsUpdate,
  fieldsDelete,
  contextsCreate,
  contextsList,
  contextsGet,
  contextsUpdate,
  contextsStatus,
  contextsDelete,
];
