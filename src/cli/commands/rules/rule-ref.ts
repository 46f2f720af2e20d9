import { errors } from "../../../contract/errors.js";
import type { DdsService } from "../../../contract/service.js";
import { isUuid } from "../../../util/uuid-shape.js";

/**
 * Resolves a rule named by ruleId or by name to its ruleId: a UUID is taken as is, a name
 * is looked up (404 when no rule has it; a usage error when several do).
 */
export async function resolveRuleId(service: DdsService, ref: string): Promise<string> {
  if (isUuid(ref)) return ref.toLowerCase();
  const page = await service.listRules({ filters: [{ field: "name", op: "eq", value: ref }], limit: 2 });
  if (page.data.length === 0) throw errors.notFound("rule", ref);
  if (page.data.length > 1) throw errors.usage(`several rules are named "${ref}"; name the rule by its ruleId`);
  return page.data[0].ruleId;
}
