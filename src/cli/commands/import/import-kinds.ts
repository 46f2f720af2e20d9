import type { BulkResponse } from "../../../contract/schemas/index.js";
import type { DdsService, WriteOptions } from "../../../contract/service.js";
import type { LineObject } from "./line-parse.js";

/** What `ddsctl import` loads. */
export const IMPORT_KINDS = ["contributions", "records-update", "records-delete"] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

/** How one kind of import reads its lines and sends its batches. */
export interface KindSpec {
  /**
   * The `kind` a line of this import may carry (an `export` file's `"Contribution"`);
   * lines with any other `kind` are skipped. Without it, every line with a `kind` is.
   */
  lineKind?: string;
  /** What a success did, for the summary table. */
  verb: "created" | "updated" | "deleted";
  /** The item schema's name in the contract, checked locally by --dry-run. */
  schema: "ContributionCreate" | "RecordUpdateItem" | "RecordDeleteItem";
  send(service: DdsService, items: unknown[], options: WriteOptions): Promise<BulkResponse>;
  /** Items with the same order key reach the service in file order. */
  orderKey(item: LineObject): string | undefined;
  /**
   * Whether a success was applied by this request rather than replayed from an earlier
   * run under the same key; undefined when the response cannot tell (a delete has no body).
   */
  appliedNow?(data: unknown, sentAt: string): boolean;
  /** The context a success touched, to drain the pipeline for it afterwards. */
  contextOf?(data: unknown): string | undefined;
  /** The id of what a success stored (see Checkpoint.anchor), and how to ask the target for it. */
  anchorOf?(data: unknown): string | undefined;
  holds?(service: DdsService, id: string): Promise<boolean>;
}

/** True when the service answers the read (false for a 404: another database, or deleted since). */
const exists = async (read: () => Promise<unknown>): Promise<boolean> => {
  try {
    await read();
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === "not_found") return false;
    throw err;
  }
};

const str = (v: unknown) => (typeof v === "string" ? v : undefined);
const field = (data: unknown, name: string) => (data !== null && typeof data === "object" ? str((data as Record<string, unknown>)[name]) : undefined);

/** The three kinds. */
export const KINDS: Record<ImportKind, KindSpec> = {
  contributions: {
    lineKind: "Contribution",
    verb: "created",
    schema: "ContributionCreate",
    send: (service, items, options) => service.bulkCreateContributions({ items }, options),
    orderKey: (item) => str(item.contextId)?.toLowerCase(),
    // A replay returns the first run's contributions, received before this request left.
    appliedNow: (data, sentAt) => (field(data, "receivedAt") ?? sentAt) >= sentAt,
    contextOf: (data) => field(data, "contextId"),
    anchorOf: (data) => field(data, "contributionId"),
    holds: (service, id) => exists(() => service.getContribution(id)),
  },
  "records-update": {
    verb: "updated",
    schema: "RecordUpdateItem",
    send: (service, items, options) => service.bulkUpdateRecords({ items }, options),
    orderKey: (item) => str(item.recordId)?.toLowerCase(),
    contextOf: (data) => field(data, "contextId"),
    anchorOf: (data) => field(data, "recordId"),
    holds: (service, id) => exists(() => service.getRecord(id)),
  },
  "records-delete": {
    verb: "deleted",
    schema: "RecordDeleteItem",
    send: (service, items, options) => service.bulkDeleteRecords({ items }, options),
    orderKey: (item) => str(item.recordId)?.toLowerCase(),
  },
};
