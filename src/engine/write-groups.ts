import type { DdsService } from "../contract/service.js";
import type { WriteGroup } from "./store/store.js";

export type { WriteGroup } from "./store/store.js";

/**
 * The write groups a service offers: the in-process engine's, or undefined (a remote
 * service commits each request). Kept apart from the engine so an import reaches it
 * without loading the engine's modules.
 */
export function writeGroupsOf(service: DdsService): (() => WriteGroup) | undefined {
  const start = (service as { writeGroup?: () => WriteGroup }).writeGroup;
  return typeof start === "function" ? () => start.call(service) : undefined;
}
