import { DdsError, errors, type Problem } from "../../../contract/errors.js";
import type { ContextCreate, Model } from "../../../contract/schemas/index.js";
import type { DdsService } from "../../../contract/service.js";
import { isUuid } from "../../../portable/names/uuid-shape.js";
import { BoundedMap } from "./bounded-map.js";
import { contextNotActive, invalidContribution, modelNotActive } from "../../../engine/evidence/evidence-problems.js";
import { contributionDataProblems } from "./data-check.js";
import { problemOf, withIds, type LineObject } from "./line-parse.js";

/** How contextRef names that do not exist yet are handled. */
export interface ReferenceOptions {
  createContexts: boolean;
  /** Resolve without creating anything (would-be-created contexts get a placeholder id). */
  dryRun: boolean;
}

type Entry = { id: string; status: string } | { problem: Problem };

/** A line with its names resolved to ids, or the problem that rejects it. */
export type Resolved = { item: LineObject } | { problem: Problem };

/** The line with its context resolved (see withIds), or the problem of its context. */
const applied = (obj: LineObject, modelId: string | undefined, entry: Entry): Resolved =>
  "problem" in entry ? { problem: entry.problem } : { item: withIds(obj, modelId, entry.id) };

/** The id a dry run gives a context it would create. */
const WOULD_CREATE = "00000000-0000-7000-8000-000000000000";
const CACHE_SIZE = 100_000;

/**
 * Turns the friendly references of an import line (`modelName`, `contextRef`) into the
 * ids the service takes, with one lookup per distinct name. Models are few and loaded
 * once; contexts are looked up by name on first use and, with --create-contexts, created
 * then (from the file's own `{"kind": "Context"}` line of that name when there is one, so
 * an exported case keeps its type and metadata).
 */
export class References {
  private readonly modelsByName = new Map<string, { id: string; status: string }>();
  private readonly modelsById = new Map<string, Model>();
  private readonly contexts = new BoundedMap<string, Entry>(CACHE_SIZE);
  private readonly contextsById = new BoundedMap<string, Entry>(CACHE_SIZE);
  private readonly contextBodies = new BoundedMap<string, LineObject>(CACHE_SIZE);

  private constructor(
    private readonly service: DdsService,
    private readonly options: ReferenceOptions,
  ) {}

  /** Loads every model (a workspace has few) and returns the resolver. */
  static async load(service: DdsService, options: ReferenceOptions): Promise<References> {
    const refs = new References(service, options);
    let cursor: string | undefined;
    do {
      const page = await service.listModels({ limit: 500, ...(cursor ? { cursor } : {}) });
      for (const m of page.models) {
        refs.modelsByName.set(m.name, { id: m.modelId, status: m.status });
        refs.modelsById.set(m.modelId, m);
      }
      cursor = page.hasNextPage && page.nextCursor ? page.nextCursor : undefined;
    } while (cursor);
    return refs;
  }

  /** A model by id (any case); undefined when unknown. */
  model(id: unknown): Model | undefined {
    return typeof id === "string" ? this.modelsById.get(id.toLowerCase()) : undefined;
  }

  /** Remembers a `{"kind": "Context", "name", …}` line as the body to create that context with. */
  rememberContext(line: LineObject): void {
    if (typeof line.name !== "string") return;
    const body: LineObject = { ...line };
    delete body.kind;
    this.contextBodies.set(line.name, body);
  }

  /**
   * The line with `modelName` and `contextRef` replaced by the `modelId` and `contextId`
   * they name (see withIds), or the problem when one cannot be resolved; synchronous
   * unless a name needs a lookup.
   */
  resolve(obj: LineObject): Resolved | Promise<Resolved> {
    let modelId: string | undefined;
    if (obj.modelName !== undefined) {
      if (obj.modelId !== undefined) return { problem: errors.invalid("give modelName or modelId, not both").toProblem() };
      if (typeof obj.modelName !== "string") return { problem: errors.invalid("modelName must be a string").toProblem() };
      const model = this.modelsByName.get(obj.modelName);
      if (!model) return { problem: errors.notFound("model", obj.modelName).toProblem() };
      modelId = model.id;
    }
    if (obj.contextRef === undefined) return { item: modelId === undefined ? obj : withIds(obj, modelId, undefined) };
    if (obj.contextId !== undefined) return { problem: errors.invalid("give contextRef or contextId, not both").toProblem() };
    const ref = obj.contextRef;
    if (typeof ref !== "string" || ref.length === 0) return { problem: errors.invalid("contextRef must be a context name (a non-empty string)").toProblem() };
    const cached = this.contexts.get(ref);
    if (cached) return applied(obj, modelId, cached);
    return this.lookupContext(ref).then((entry) => {
      this.contexts.set(ref, entry);
      if ("id" in entry) this.contextsById.set(entry.id, entry);
      return applied(obj, modelId, entry);
    });
  }

  /**
   * Dry run: checks that the (resolved) model and context exist and accept evidence, and
   * that the data fits the model (types, enums, identity), as ingest would.
   */
  async check(obj: LineObject): Promise<Problem | undefined> {
    const model = this.modelsById.get(String(obj.modelId).toLowerCase());
    if (!model) return errors.notFound("model", String(obj.modelId)).toProblem();
    if (model.status !== "active") return modelNotActive(model).toProblem();
    const problems = contributionDataProblems(model, obj);
    if (problems.length > 0) return invalidContribution(problems).toProblem();
    const id = String(obj.contextId).toLowerCase();
    if (id === WOULD_CREATE) return undefined;
    let entry = this.contextsById.get(id);
    if (!entry) {
      entry = await this.fetchContext(id);
      this.contextsById.set(id, entry);
    }
    if ("problem" in entry) return entry.problem;
    if (entry.status !== "active") return contextNotActive({ id, status: entry.status }, "adding evidence").toProblem();
    return undefined;
  }

  private async lookupContext(ref: string): Promise<Entry> {
    const page = await this.service.listContexts({ filters: [{ field: "name", op: "eq", value: ref }], limit: 2 });
    if (page.data.length > 1) return { problem: errors.invalid(`contextRef "${ref}" names more than one context; use contextId`).toProblem() };
    const found = page.data[0];
    if (found) return { id: found.contextId, status: found.status };
    if (isUuid(ref)) {
      const byId = await this.fetchContext(ref.toLowerCase());
      if ("id" in byId) return byId;
    }
    if (!this.options.createContexts) {
      return { problem: new DdsError("not_found", `context "${ref}" not found (add --create-contexts to create contexts on first use)`).toProblem() };
    }
    if (this.options.dryRun) return { id: WOULD_CREATE, status: "active" };
    try {
      // The body comes from the file; the service validates it like any POST /contexts.
      const body = (this.contextBodies.get(ref) ?? { name: ref }) as ContextCreate;
      const created = await this.service.createContext(body);
      return { id: created.contextId, status: created.status };
    } catch (err) {
      // A body the service refuses rejects the lines naming it; anything else stops the import.
      if (err instanceof DdsError && err.status < 500 && err.status !== 401 && err.status !== 403) return { problem: problemOf(err) };
      throw err;
    }
  }

  private async fetchContext(id: string): Promise<Entry> {
    try {
      const c = await this.service.getContext(id);
      return { id: c.contextId, status: c.status };
    } catch (err) {
      if (err instanceof DdsError && err.status === 404) return { problem: err.toProblem() };
      throw err;
    }
  }
}
