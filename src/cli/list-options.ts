import { errors, isDdsError } from "../contract/errors.js";
import { checkListQuery, FILTER_OPS, LIST_SPECS, parseLimit, parseSort, type FilterClause, type FilterOp, type ListName, type ListQuery } from "../contract/list-query.js";
import type { Page } from "../contract/schemas/index.js";
import type { Column, Output } from "./output/output.js";
import { pushAll } from "../portable/arrays.js";

const SYMBOLS: [string, FilterOp][] = [
  [">=", "gte"],
  ["<=", "lte"],
  ["!=", "ne"],
  ["~=", "contains"],
  [">", "gt"],
  ["<", "lt"],
  ["=", "eq"],
];

/**
 * Parses one `--filter`: `field=value`, `field!=value`, `field>=value`, `field~=text`,
 * or the REST spelling `field[op]=value` (`status[in]=active,completed`).
 */
export function parseFilter(text: string): FilterClause {
  const rest = /^([^[\]=<>!~]+)\[([a-z]+)\]=(.*)$/s.exec(text);
  if (rest) {
    if (!FILTER_OPS.includes(rest[2] as FilterOp)) throw errors.usage(`unknown filter operator "${rest[2]}" in --filter ${text}`);
    return { field: rest[1], op: rest[2] as FilterOp, value: rest[3] };
  }
  let best: { at: number; sym: string; op: FilterOp } | undefined;
  for (const [sym, op] of SYMBOLS) {
    const at = text.indexOf(sym);
    if (at > 0 && (!best || at < best.at || (at === best.at && sym.length > best.sym.length))) best = { at, sym, op };
  }
  if (!best) throw errors.usage(`--filter "${text}" must look like field=value (or field!=, >, >=, <, <=, ~=, field[op]=value)`);
  return { field: text.slice(0, best.at), op: best.op, value: text.slice(best.at + best.sym.length) };
}

/** Flags of a list command (see `listArgs`). */
export interface ListFlags {
  filter: string[];
  sort?: string;
  limit?: string;
  cursor?: string;
  all?: boolean;
}

/**
 * Builds the ListQuery from list flags (extra clauses, e.g. --model, are appended) and
 * checks it as the service would: an unknown field, or a value its field cannot hold
 * (`status=actve`, `createdAt>=yesterday`), is a usage error that says what is allowed.
 */
export function listQueryFrom(flags: ListFlags, list: ListName, extra: FilterClause[] = []): ListQuery {
  const query: ListQuery = { filters: [...flags.filter.map(parseFilter), ...extra] };
  if (flags.sort) query.sort = parseSort(flags.sort);
  if (flags.limit !== undefined) {
    try {
      query.limit = parseLimit(flags.limit);
    } catch (err) {
      throw errors.usage((err as Error).message);
    }
  }
  if (flags.cursor) query.cursor = flags.cursor;
  try {
    checkListQuery(LIST_SPECS[list], query);
  } catch (err) {
    throw isDdsError(err) ? errors.usage(err.message) : err;
  }
  return query;
}

/** Fetches one page, or every page with --all (returned as one last page). */
export async function collectPages<T>(flags: Pick<ListFlags, "all">, query: ListQuery, fetch: (q: ListQuery) => Promise<Page<T>>): Promise<Page<T>> {
  let page = await fetch(query);
  if (!flags.all) return page;
  const data = [...page.data];
  while (page.hasNextPage && page.nextCursor) {
    page = await fetch({ ...query, cursor: page.nextCursor });
    pushAll(data, page.data);
  }
  return { data, nextCursor: null, hasNextPage: false };
}

/**
 * Prints one list result: the REST body as is with -o json|yaml|name, else a table of
 * `rows` (or one line on stderr naming what was not found) and, when more pages exist, how
 * to fetch them. Columns are built only for the table, so a list whose columns need an
 * extra lookup (model names) costs nothing more under --json.
 */
export async function renderPage<T>(
  out: Output,
  body: { nextCursor: string | null; hasNextPage: boolean },
  rows: T[],
  columns: () => Column<T>[] | Promise<Column<T>[]>,
  noun: string,
): Promise<void> {
  if (out.options.json) return out.json(body);
  out.table(rows, rows.length === 0 ? [] : await columns(), noun);
  if (body.hasNextPage) out.info(out.c.dim(`more: --cursor ${body.nextCursor} (or --all)`));
}
