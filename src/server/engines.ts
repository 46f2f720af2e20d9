import type { Principal } from "../engine/auth/index.js";
import { createLocalEngine, type LocalEngine } from "../engine/local-engine.js";
import type { Store } from "../engine/store/store.js";

/** Engines kept at most; beyond, the least recently created is dropped (they are cheap). */
const MAX_ENGINES = 512;

/**
 * One engine per token, over the shared store: the token fixes the workspace (isolation)
 * and the actor (`token:<tokenId>`, written to `createdBy`). Engines are cached because
 * building one prepares repositories and a model cache worth keeping between requests.
 */
export function createEngineCache(store: Store) {
  const engines = new Map<string, LocalEngine>();
  return {
    get(principal: Principal): LocalEngine {
      let engine = engines.get(principal.tokenId);
      if (!engine) {
        engine = createLocalEngine({ db: store, workspace: principal.workspace, actor: `token:${principal.tokenId}` });
        if (engines.size >= MAX_ENGINES) engines.delete(engines.keys().next().value as string);
        engines.set(principal.tokenId, engine);
      }
      return engine;
    },
  };
}

/** The engine cache type. */
export type EngineCache = ReturnType<typeof createEngineCache>;
