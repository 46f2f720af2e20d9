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

/**
 * Grouped commits: a write group opened on demand (`begin`), due once it has been open
 * `everyMs` or has taken `maxItems` items (`isDue`, `add`), and handed over to be ended
 * (`take`). An import (every second or 10,000 lines) and a CLI drain's passes (every
 * 250 ms) both commit this way; each decides when it may end a group (between calls) and
 * what a failed commit means for it. Without a way to open
 * groups, `begin` does nothing and every call commits on its own.
 */
export class GroupedCommits {
  private group: WriteGroup | undefined;
  private openedAt = 0;
  private items = 0;

  constructor(
    private readonly start: (() => WriteGroup) | undefined,
    readonly everyMs: number,
    readonly maxItems = Number.POSITIVE_INFINITY,
  ) {}

  /** Whether groups are used at all. */
  get enabled(): boolean {
    return this.start !== undefined;
  }

  /** Opens a group unless one is open (or groups are off). */
  begin(): void {
    if (!this.start || this.group) return;
    this.group = this.start();
    this.openedAt = performance.now();
    this.items = 0;
  }

  /** Counts items written in the open group (an import's lines): `maxItems` of them make it due. */
  add(items: number): void {
    this.items += items;
  }

  /** True once the open group has been open for `everyMs` or has taken `maxItems` items. */
  isDue(): boolean {
    return this.group !== undefined && (this.items >= this.maxItems || performance.now() - this.openedAt >= this.everyMs);
  }

  /** Closes the books on the open group: the caller commits or rolls back what it returns. */
  take(): WriteGroup | undefined {
    const group = this.group;
    this.group = undefined;
    return group;
  }
}
