/**
 * Contexts in a result, named as a reader knows them: by the word the user typed for it,
 * else by its name, else by its id (an unnamed context). A long list shows its first few
 * and says how many more there are (`--json` keeps every id).
 */
import type { DdsService } from "../../contract/service.js";
import { mapLimit } from "../../portable/map-limit.js";

/** Contexts named in a line before `… and N more`. */
export const SHOWN_CONTEXTS = 10;

/**
 * The contexts of `ids` as one line of names (`okafor-purchase, haddad-purchase, … and 20
 * more`). `known` gives the names already at hand (what the user typed, what documents
 * declared); the others are read from the service, only those shown.
 */
export async function contextList(service: DdsService, ids: readonly string[], known: ReadonlyMap<string, string> = new Map()): Promise<string> {
  const shown = ids.slice(0, SHOWN_CONTEXTS);
  const names = await mapLimit(shown, 8, async (id) => known.get(id) ?? (await service.getContext(id).then((c) => c.name ?? id, () => id)));
  const more = ids.length - shown.length;
  return more > 0 ? `${names.join(", ")}, … and ${more} more` : names.join(", ");
}
