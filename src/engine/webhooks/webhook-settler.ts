import type { Store } from "../store/store.js";
import { createDeliveryRepo, type ClaimedDelivery, type SettleResult } from "../store/webhook-repo.js";

interface Pending {
  claim: Pick<ClaimedDelivery, "id" | "attempts" | "leaseUntil">;
  result: SettleResult;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Writes attempts' results in groups: the results that finish while one group is being
 * written go together in the next transaction. Under load that is one commit (and, on
 * PostgreSQL, one NOTIFY) for many deliveries instead of one each; alone, a result is
 * written at once.
 */
export function createSettler(store: Store) {
  let queue: Pending[] = [];
  let writing: Promise<void> | undefined;

  const write = async (): Promise<void> => {
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      try {
        await store.sql.tx(async (tx) => {
          const repo = createDeliveryRepo(tx);
          // Issued together: PostgreSQL pipelines them on the transaction's connection.
          await Promise.all(group.map((p) => repo.settle(p.claim, p.result)));
        });
        for (const p of group) p.resolve();
      } catch (err) {
        // The rows stay claimed until their lease runs out, then are tried again.
        for (const p of group) p.reject(err);
      }
    }
    writing = undefined;
  };

  return {
    /** Records one attempt's result (fenced: a stale claim's result is dropped); resolves once committed. */
    settle(claim: Pending["claim"], result: SettleResult): Promise<void> {
      return new Promise((resolve, reject) => {
        queue.push({ claim, result, resolve, reject });
        writing ??= write();
      });
    },
  };
}
