import type { z } from "zod";
import type { Problem } from "../../../contract/errors.js";
import type { KindSpec } from "./import-kinds.js";
import { parseLine, problemOf, withIds, type LineObject } from "./line-parse.js";
import { contributionOrderKey } from "./order-keys.js";
import type { References, Resolved } from "./references.js";

/** What became of one line: skipped (blank, another kind), rejected, or an item to send. */
export type Classified = { skip: true } | { problem: Problem } | { item: LineObject };

const SKIP: Classified = { skip: true };

/**
 * Reads lines into bulk items for one import kind. A real run checks only what it must
 * (JSON, an object, resolvable names) and lets the service validate the rest, per item;
 * a dry run also checks the item's shape with the contract's schema and that its model
 * and context accept evidence, since nothing will be sent.
 */
export class LineClassifier {
  constructor(
    private readonly spec: KindSpec,
    private readonly refs: References | undefined,
    private readonly dryRun: { schema: z.ZodType; parse: (schema: z.ZodType, body: unknown, what: string) => unknown } | undefined,
  ) {}

  /** Classifies a line; synchronous unless a name needs a lookup. */
  classify(text: string): Classified | Promise<Classified> {
    if (text.trim() === "") return SKIP;
    const parsed = parseLine(text);
    if (!parsed.ok) return { problem: parsed.problem };
    let obj = parsed.value;
    if (Object.hasOwn(obj, "kind")) {
      if (this.spec.lineKind === undefined || obj.kind !== this.spec.lineKind) {
        if (obj.kind === "Context") this.refs?.rememberContext(obj);
        return SKIP;
      }
      // Left out by a copy rather than `delete` (see withIds).
      obj = withIds(obj, undefined, undefined);
    }
    if (!this.refs) return this.finish({ item: obj });
    const resolved = this.refs.resolve(obj);
    return resolved instanceof Promise ? resolved.then((r) => this.finish(r)) : this.finish(resolved);
  }

  /** The order key of an item (see Dispatcher). */
  orderKey(item: LineObject): string | undefined {
    if (this.spec.lineKind === "Contribution" && this.refs) return contributionOrderKey(item, this.refs.model(item.modelId));
    return this.spec.orderKey(item);
  }

  private finish(resolved: Resolved): Classified | Promise<Classified> {
    return this.dryRun && "item" in resolved ? this.check(resolved.item) : resolved;
  }

  private async check(obj: LineObject): Promise<Classified> {
    const { schema, parse } = this.dryRun!;
    try {
      parse(schema, obj, this.spec.schema === "ContributionCreate" ? "contribution" : "item");
    } catch (err) {
      return { problem: problemOf(err) };
    }
    const problem = await this.refs?.check(obj);
    return problem ? { problem } : { item: obj };
  }
}
