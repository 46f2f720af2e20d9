import type { CommandDefinition } from "./core/define-command.js";
import apply from "./commands/apply/apply.js";
import demo from "./commands/demo/demo.js";
import seed from "./commands/seed/seed.js";
import wait from "./commands/wait/wait.js";
import init from "./commands/init/init.js";
import login from "./commands/login/login.js";
import profilesList from "./commands/profiles/list.js";
import profilesRemove from "./commands/profiles/remove.js";
import profilesUse from "./commands/profiles/use.js";
import contextsCreate from "./commands/contexts/create.js";
import contextsDelete from "./commands/contexts/delete.js";
import contextsGet from "./commands/contexts/get.js";
import contextsList from "./commands/contexts/list.js";
import contextsStatus from "./commands/contexts/status.js";
import contextsUpdate from "./commands/contexts/update.js";
import contributionsAdd from "./commands/contributions/add.js";
import contributionsGet from "./commands/contributions/get.js";
import contributionsList from "./commands/contributions/list.js";
import evaluationsList from "./commands/evaluations/list.js";
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
import pipelineRun from "./commands/pipeline/run.js";
import pipelineStatus from "./commands/pipeline/status.js";
import recordsDelete from "./commands/records/delete.js";
import recordsExplain from "./commands/records/explain.js";
import recordsGet from "./commands/records/get.js";
import recordsList from "./commands/records/list.js";
import recordsUpdate from "./commands/records/update.js";
import relationshipsList from "./commands/relationships/list.js";
import relationshipsRemove from "./commands/relationships/remove.js";
import rulesCreate from "./commands/rules/create.js";
import rulesDelete from "./commands/rules/delete.js";
import rulesGet from "./commands/rules/get.js";
import rulesList from "./commands/rules/list.js";
import rulesStatus from "./commands/rules/status.js";
import rulesUpdate from "./commands/rules/update.js";
import rulesDeps from "./commands/rules/deps.js";
import rulesEval from "./commands/rules/eval.js";
import rulesTest from "./commands/rules/test.js";
import traceDiff from "./commands/trace/diff.js";
import trace from "./commands/trace/trace.js";
import webhooksCreate from "./commands/webhooks/create.js";
import webhooksDelete from "./commands/webhooks/delete.js";
import webhooksDeliveries from "./commands/webhooks/deliveries.js";
import webhooksGet from "./commands/webhooks/get.js";
import webhooksList from "./commands/webhooks/list.js";
import webhooksEnable from "./commands/webhooks/enable.js";
import webhooksDisable from "./commands/webhooks/disable.js";
import webhooksRedeliver from "./commands/webhooks/redeliver.js";
import webhooksRecover from "./commands/webhooks/recover.js";
import migrate from "./commands/migrate/migrate.js";
import serve from "./commands/serve/serve.js";
import studio from "./commands/studio/studio.js";
import tokensCreate from "./commands/tokens/create.js";
import tokensList from "./commands/tokens/list.js";
import tokensRevoke from "./commands/tokens/revoke.js";
import secretsRotate from "./commands/secrets/rotate.js";
import importCommand from "./commands/import/import.js";
import exportCommand from "./commands/export/export.js";
import completion from "./commands/completion/completion.js";
import complete from "./commands/completion/complete.js";
import version from "./commands/version/version.js";

/**
 * Every command, in the order --help lists them. A new command is one file and one line
 * here (`migrate`, `studio` and `secrets rotate` join the same way).
 */
export const COMMANDS: CommandDefinition[] = [
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
  contributionsAdd,
  contributionsList,
  contributionsGet,
  recordsList,
  recordsGet,
  recordsExplain,
  recordsUpdate,
  recordsDelete,
  relationshipsList,
  relationshipsRemove,
  rulesCreate,
  rulesList,
  rulesGet,
  rulesUpdate,
  rulesStatus,
  rulesDelete,
  evaluationsList,
  trace,
  pipelineRun,
  pipelineStatus,
  webhooksCreate,
  webhooksList,
  webhooksGet,
  webhooksDelete,
  webhooksEnable,
  webhooksDisable,
  webhooksDeliveries,
  webhooksRedeliver,
  webhooksRecover,
  serve,
  migrate,
  studio,
  tokensCreate,
  tokensList,
  tokensRevoke,
  secretsRotate,
  rulesEval,
  rulesTest,
  rulesDeps,
  // After `trace`: it hangs below that command.
  traceDiff,
  apply,
  seed,
  wait,
  demo,
  init,
  login,
  profilesList,
  profilesUse,
  profilesRemove,
  importCommand,
  exportCommand,
  completion,
  version,
  complete,
];
