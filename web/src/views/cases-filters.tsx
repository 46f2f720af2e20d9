/** The filter bar of the cases view: every change goes to the address (a deep link). */
import type { Rule } from "../../../src/contract/schemas/index.js";
import { CONTEXT_STATUSES, FRESHNESS } from "../../../src/contract/constants.js";
import { setQuery } from "../router.js";
import type { CaseFilters } from "../data/cases.js";

function Select(props: { label: string; name: string; value?: string; options: [string, string][] }) {
  return (
    <label>
      {props.label}{" "}
      <select name={props.name} value={props.value ?? ""} onChange={(e) => setQuery({ [props.name]: e.currentTarget.value, page: null })}>
        <option value="">any</option>
        {props.options.map(([v, text]) => (
          <option value={v}>{text}</option>
        ))}
      </select>
    </label>
  );
}

/** Filters by type, status, freshness, metadata and one rule's outcome. */
export function CaseFilterBar(props: { filters: CaseFilters; types: string[]; rules: Rule[] }) {
  const f = props.filters;
  const commit = (name: string) => (e: Event) => setQuery({ [name]: (e.currentTarget as HTMLInputElement).value.trim(), page: null });
  return (
    <form class="filters" role="search" aria-label="Filter cases" onSubmit={(e) => e.preventDefault()}>
      <label>
        Type{" "}
        <input name="type" list="case-types" value={f.type ?? ""} onChange={commit("type")} size={12} />
        <datalist id="case-types">
          {props.types.map((t) => (
            <option value={t} />
          ))}
        </datalist>
      </label>
      <Select label="Status" name="status" value={f.status} options={CONTEXT_STATUSES.map((s) => [s, s])} />
      <Select label="Freshness" name="freshness" value={f.freshness} options={FRESHNESS.map((s) => [s, s])} />
      <label>
        Metadata <input name="meta" placeholder="region=west" value={f.meta ?? ""} onChange={commit("meta")} size={14} />
      </label>
      <Select label="Rule" name="rule" value={f.rule} options={props.rules.map((r) => [r.ruleId, r.name])} />
      <Select
        label="Outcome"
        name="outcome"
        value={f.outcome}
        options={[
          ["fail", "failed"],
          ["pass", "passed"],
        ]}
      />
    </form>
  );
}
