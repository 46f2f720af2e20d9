import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ImportSummary } from "../../../src/cli/commands/import/import-summary.js";
import { openLocalEngine } from "../../../src/engine/local-engine.js";
import { APPLICANT, EMPLOYMENT, LOAN, RULES } from "../../contract/mortgage-models.js";
import { ddsctl, type Sandbox } from "../../helpers/cli.js";

/** A reject line as the import writes it. */
export interface RejectLine {
  line: number;
  error: { code: string; status: number; detail: string; type: string; title: string; errors?: { path: string; message: string }[] };
  input: string;
  truncated?: true;
}

/** The --json summary of an import. */
export type Summary = ImportSummary;

/**
 * Creates and activates the mortgage models (and, optionally, their rules) with one
 * `ddsctl apply`, so the same set-up works on a local database and on a remote workspace.
 */
export async function setupModels(box: Sandbox, withRules = false): Promise<void> {
  const docs: object[] = [EMPLOYMENT, APPLICANT, LOAN].map((m) => ({ kind: "Model", ...m }));
  if (withRules) docs.push(...Object.values(RULES).map((r) => ({ kind: "Rule", ...r })));
  const file = join(box.dir, "mortgage-models.json");
  writeFileSync(file, JSON.stringify(docs));
  const r = await ddsctl(box, ["apply", "-f", file, "--quiet"]);
  if (r.exitCode !== 0) throw new Error(`apply failed (${r.exitCode}): ${r.stderr}`);
}

/** The sandbox's model ids by name. */
export async function modelIds(box: Sandbox): Promise<Record<string, string>> {
  const models = (await ddsctl(box, ["models", "list", "--json"])).json().models as { name: string; modelId: string }[];
  return Object.fromEntries(models.map((m) => [m.name, m.modelId]));
}

/** Writes lines (joined by `\n`, with a final newline) to a file in the sandbox; returns its path. */
export function writeLines(box: Sandbox, name: string, lines: string[]): string {
  const path = join(box.dir, name);
  writeFileSync(path, lines.map((l) => `${l}\n`).join(""));
  return path;
}

/** Reads a rejects file (empty list when there is none). */
export function readRejects(path: string): RejectLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as RejectLine);
}

/** A contribution line naming its context and model, as a person would write it. */
export function contribution(contextRef: string, modelName: string, sourceId: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ contextRef, modelName, sourceId, sourceType: "document", data, ...extra });
}

/** What the database holds, in a form two databases can be compared by. */
export interface Snapshot {
  contexts: string[];
  records: string[];
  contributions: { accepted: number; superseded: number };
  freshness: string[];
}

type Listed = { data: unknown[]; nextCursor: string | null; hasNextPage: boolean };

/** Every item of a list, page by page. */
async function all<T>(fetch: (cursor?: string) => Promise<Listed>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetch(cursor);
    out.push(...(page.data as T[]));
    cursor = page.hasNextPage && page.nextCursor ? page.nextCursor : undefined;
  } while (cursor);
  return out;
}

type Ctx = { contextId: string; name: string | null };
type Rec = { contextId: string; modelId: string; sha256: string; freshness: string };
type Con = { status: string };

function shape(contexts: Ctx[], models: { modelId: string; name: string }[], records: Rec[], contributions: Con[]): Snapshot {
  const names = new Map(contexts.map((c) => [c.contextId, c.name ?? c.contextId]));
  const modelNames = new Map(models.map((m) => [m.modelId, m.name]));
  return {
    contexts: contexts.map((c) => c.name ?? c.contextId).sort(),
    records: records.map((r) => `${names.get(r.contextId)}/${modelNames.get(r.modelId)}/${r.sha256}`).sort(),
    contributions: {
      accepted: contributions.filter((c) => c.status === "accepted").length,
      superseded: contributions.filter((c) => c.status === "superseded").length,
    },
    freshness: [...new Set(records.map((r) => r.freshness))].sort(),
  };
}

/**
 * Reads contexts (by name), records (context/model/sha256) and contribution counts per
 * status: straight from the engine for a local sandbox (fast for the kill test's 20,000
 * contributions), through the CLI's list commands for a remote one.
 */
export async function snapshot(box: Sandbox): Promise<Snapshot> {
  if (box.mode === "remote") {
    const list = async <T>(args: string[]) => (await ddsctl(box, [...args, "--limit", "500", "--all", "--json"])).json().data as T[];
    const models = (await ddsctl(box, ["models", "list", "--json"])).json().models;
    return shape(await list<Ctx>(["contexts", "list"]), models, await list<Rec>(["records", "list"]), await list<Con>(["contributions", "list"]));
  }
  // A SQLite path, or a PostgreSQL URL (the PostgreSQL variant of the kill test).
  const engine = await openLocalEngine({ db: box.db });
  try {
    const q = (cursor?: string) => ({ limit: 500, ...(cursor ? { cursor } : {}) });
    return shape(
      await all<Ctx>((c) => engine.listContexts(q(c))),
      (await engine.listModels({ limit: 500 })).models,
      await all<Rec>((c) => engine.listRecords(q(c))),
      await all<Con>((c) => engine.listContributions(q(c))),
    );
  } finally {
    await engine.close();
  }
}

/**
 * The mortgage models, a rule on Loan.amount, and one context (named `<prefix>-case…`)
 * with a loan imported by name; returns the names and the import's run.
 */
export async function loanCaseWithRule(box: Sandbox, prefix: string): Promise<{ ctx: string; rule: string; imported: Awaited<ReturnType<typeof ddsctl>> }> {
  await setupModels(box);
  const ctx = `${prefix}-case-${process.pid}`;
  const rule = `${prefix}-loan-floor-${process.pid}`;
  const body = JSON.stringify({ name: rule, category: "eligibility", severity: "low", expression: { ">=": [{ var: "Loan.amount" }, 1000] } });
  const created = await ddsctl(box, ["rules", "create", "-f", "-", "--quiet"], { input: body });
  if (created.exitCode !== 0) throw new Error(`rules create failed: ${created.stderr}`);
  const imported = await ddsctl(box, ["import", "contributions", writeLines(box, `${prefix}.ndjson`, [contribution(ctx, "Loan", "doc-1", { amount: 250000 })]), "--create-contexts"]);
  return { ctx, rule, imported };
}
