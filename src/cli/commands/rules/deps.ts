import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs, refs } from "../../core/shared-args.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import { allModels, allPages } from "../../../portable/workbench/trace/lineage-reader.js";
import { readersOf, ruleDependencies, ruleReads } from "../../../portable/workbench/rules-eval/rule-deps.js";

/** `ddsctl rules deps [rule] [--field Model.field]`. */
export default defineCommand({
  command: "rules deps",
  description:
    "show the model fields each rule reads, directly and through the computed fields it reads down to stored fields, or (--field Model.field) every rule and computed field that reads a field",
  examples: ["ddsctl rules deps", "ddsctl rules deps dti-limit --json", "ddsctl rules deps --field Employment.monthlyIncome"],
  args: {
    rule: { ...refs.rule, required: false, description: "one rule (name or ruleId); default every rule" },
    field: { type: "string", placeholder: "Model.field", description: "list what reads this field instead" },
    ...reportArgs,
  },
  async handler(args, ctx) {
    const { out } = ctx;
    const { field, rule: ruleRef } = args;
    if (field !== undefined && ruleRef !== undefined) throw errors.usage("give a rule or --field, not both");
    const service = await ctx.service();
    const models = await allModels(service);
    const rules = ruleRef !== undefined ? [await service.getRule(await resolveRef(service, "rule", ruleRef))] : await allPages((q) => service.listRules(q));
    if (field !== undefined) {
      const [m, f, ...rest] = field.split(".");
      const model = models.find((x) => x.name === m);
      if (!model || rest.length > 0 || !model.fields.some((x) => x.name === f)) throw errors.notFound("field", `${field} (write it as Model.field)`);
      const readers = readersOf(models, rules, field);
      if (out.options.json) return out.json({ field, readers });
      if (readers.length === 0) return out.info(`nothing reads ${field}`);
      await out.table(readers, [
        { header: "KIND", get: (r) => r.kind },
        { header: "NAME", get: (r) => r.name },
        { header: "PATH", get: (r) => r.path },
        { header: "VIA", get: (r) => r.via.join(" → ") },
      ]);
      return;
    }
    // `reads`: the expression's own paths; `dependsOn`: those and, through computed fields, all below.
    const rows = rules.map((r) => ({ ruleId: r.ruleId, name: r.name, status: r.status, reads: ruleReads(models, r), dependsOn: ruleDependencies(models, r) }));
    if (out.options.json) return out.json({ rules: rows });
    type Row = { rule: (typeof rows)[number]; p?: (typeof rows)[number]["dependsOn"][number] };
    const flat = rows.flatMap((r): Row[] => (r.dependsOn.length > 0 ? r.dependsOn.map((p) => ({ rule: r, p })) : [{ rule: r }]));
    await out.table(flat, [
      { header: "RULE", get: (x) => x.rule.name },
      { header: "PATH", get: (x) => x.p?.path ?? "(reads nothing)" },
      { header: "READS", get: (x) => x.p?.reads ?? x.p?.problem ?? "" },
      { header: "KIND", get: (x) => x.p?.kind ?? "" },
      { header: "VIA", get: (x) => x.p?.via ?? "" },
      { header: "THROUGH", get: (x) => x.p?.through.join(" → ") ?? "" },
    ]);
  },
});
