/** Names for things the workbench commands accept beside ids. */
import { errors } from "../../contract/errors.js";
import type { DdsService } from "../../contract/service.js";
import { isUuid } from "../../util/uuid-shape.js";
import type { ExplainMode } from "../render/trace.js";

/**
 * Resolves a context named by contextId or by name: a UUID is taken as is, a name is
 * looked up (404 when no context has it; a usage error when several do).
 */
export async function resolveContextId(service: DdsService, ref: string): Promise<string> {
  if (isUuid(ref)) return ref.toLowerCase();
  const page = await service.listContexts({ filters: [{ field: "name", op: "eq", value: ref }], limit: 2 });
  if (page.data.length === 0) throw errors.notFound("context", ref);
  if (page.data.length > 1) throw errors.usage(`several contexts are named "${ref}"; name the context by its contextId`);
  return page.data[0].contextId;
}

/** Parses `--explain`. */
export function parseExplainMode(value: unknown): ExplainMode {
  const mode = value === undefined ? "auto" : String(value);
  if (mode !== "full" && mode !== "fails" && mode !== "auto") throw errors.usage(`--explain ${mode}: use full, fails or auto`);
  return mode;
}
