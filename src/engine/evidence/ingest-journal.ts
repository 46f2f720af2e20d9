import type { CompiledModel, StoredModel } from "../models/model-types.js";
import type { GroupJournal } from "../pipeline/group-journal.js";
import type { PassContribution } from "../pipeline/types.js";
import type { ContributionInsert, RecordInsert } from "../store/evidence-repo.js";

/** What a write group's journal needs of a contribution row, beside the row itself. */
export interface JournalFacts {
  contextKey: number;
  modelId: string;
  recordId: string;
  data: Record<string, unknown>;
  confidences: Record<string, number>;
}

/** What an ingest writer's flush wrote, as its journal reads it (see createIngestWriter). */
export interface FlushedRows {
  models: ReadonlyMap<string, StoredModel | undefined>;
  /** Records stored by insert-or-find, with their models' ids and the definitions they were resolved with. */
  freshRecords: readonly (readonly [RecordInsert, string, CompiledModel | undefined])[];
  /** Records created in the writer's calls, by identity. */
  created: ReadonlyMap<string, RecordInsert>;
  supersededKeys: readonly number[];
  rows: readonly ContributionInsert[];
  facts: ReadonlyMap<ContributionInsert, JournalFacts>;
}

/** Tells the write group's journal what this flush wrote (records created, contributions, supersessions). */
export function tellJournal(journal: GroupJournal, w: FlushedRows, alone?: ReadonlyMap<string, CompiledModel>): void {
  const { models, freshRecords, created, supersededKeys, rows, facts } = w;
  const modelIds = new Map([...models.values()].flatMap((m) => (m ? [[m.key, m.id] as const] : [])));
  const createdRecord = (r: RecordInsert, modelId: string, model?: CompiledModel) =>
    journal.created({
      key: r.key!,
      contextKey: r.contextKey,
      record: { id: r.id, modelId, identityKey: r.identityKey, createdAt: r.now },
      ...(model && r.resolved ? { resolved: r.resolved, model, untold: journal.bounded, clean: r.clean === true } : {}),
    });
  for (const [r, modelId, model] of freshRecords) createdRecord(r, modelId, model);
  for (const r of created.values()) createdRecord(r, modelIds.get(r.modelKey)!, alone?.get(r.id));
  journal.superseded(supersededKeys);
  for (const row of rows) {
    const f = facts.get(row);
    if (!f) continue;
    journal.contributed(
      {
        key: row.key!,
        contextKey: f.contextKey,
        recordKey: row.recordKey,
        contribution: {
          id: row.id,
          recordId: f.recordId,
          modelId: f.modelId,
          sourceId: row.sourceId,
          sourceType: row.sourceType as PassContribution["sourceType"],
          data: f.data,
          confidences: f.confidences,
          receivedAt: row.receivedAt,
          observedAt: row.observedAt,
        },
      },
      row.status === "accepted",
    );
  }
}
