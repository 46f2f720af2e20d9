import type { CompleteKind } from "../../core/args.js";
import { defineCommand } from "../../core/define-command.js";
import type { DdsService } from "../../../contract/service.js";
import { missingDatabase } from "../../core/context.js";
import { openService } from "../../service-factory.js";
import { resolveTarget } from "../../target.js";
import { existsSync } from "node:fs";
import { filterCandidates, targetFlagsOf, wantAt } from "./candidates.js";

/** Names of one kind from the target (a page of 500: completion is for people, not lists). */
async function namesOf(service: DdsService, kind: CompleteKind): Promise<string[]> {
  switch (kind) {
    case "model":
      return (await service.listModels({ limit: 500 })).models.map((m) => m.name);
    case "context":
      return (await service.listContexts({ limit: 500, sort: [{ field: "updatedAt", desc: true }] })).data.flatMap((c) => (c.name ? [c.name] : [c.contextId]));
    case "rule":
      return (await service.listRules({ limit: 500 })).data.map((r) => r.name);
    case "webhook":
      return (await service.listWebhooks({ limit: 500 })).data.map((w) => w.url);
    default:
      return [];
  }
}

/** `ddsctl __complete <words…>`: what the completion scripts call (hidden). */
export default defineCommand({
  command: "__complete",
  description: "print completion candidates for the words typed so far, one per line (used by the completion scripts)",
  examples: ["ddsctl __complete models get ''"],
  args: { words: { type: "strings", positional: true, description: "the words after ddsctl; the last is the one being completed" } },
  hidden: true,
  async handler(args, ctx) {
    // Lazy: registry.ts loads this command, so a static import would be a cycle.
    const { loadCommands } = await import("../../registry.js");
    const COMMANDS = await loadCommands();
    const typed = args.words.length > 0 ? args.words : [""];
    const current = typed[typed.length - 1];
    const want = wantAt(COMMANDS, typed);
    let words: string[] = [];
    if ("words" in want) words = want.words;
    else if ("filter" in want) words = filterCandidates(want.filter, current);
    else {
      // Completion must never fail loudly or create a database: no names is the answer.
      try {
        const target = resolveTarget(targetFlagsOf(typed), ctx.io.env);
        if (target.mode === "local" && !existsSync(target.db)) throw missingDatabase(target.db);
        const service = await openService(target, { env: ctx.io.env });
        try {
          words = await namesOf(service, want.names);
        } finally {
          await service.close();
        }
      } catch {
        words = [];
      }
    }
    for (const w of words) if (w.startsWith(current)) ctx.out.line(w);
  },
});
