import { describe, expect, it } from "vitest";
import { checkListQuery, LIST_SPECS, parseListQuery, toSearchParams } from "../../src/contract/list-query.js";
import { DdsError } from "../../src/contract/errors.js";
import { parseFilter } from "../../src/cli/list-options.js";

describe("parseListQuery", () => {
  it("reads limit, cursor, filters with operators and sort", () => {
    const q = parseListQuery(new URLSearchParams("limit=10&cursor=abc&filter[status][eq]=active&filter[metadata.region][in]=west,east&sort=name,-createdAt"));
    expect(q).toEqual({
      limit: 10,
      cursor: "abc",
      filters: [
        { field: "status", op: "eq", value: "active" },
        { field: "metadata.region", op: "in", value: "west,east" },
      ],
      sort: [
        { field: "name", desc: false },
        { field: "createdAt", desc: true },
      ],
    });
  });

  it("round-trips through toSearchParams", () => {
    const q = { limit: 5, filters: [{ field: "rule.severity", op: "eq" as const, value: "high" }], sort: [{ field: "computedAt", desc: true }] };
    expect(parseListQuery(toSearchParams(q))).toEqual({ ...q });
  });

  it.each(["limit=0", "limit=501", "limit=abc", "limit=1.5", "filter[status][like]=x", "bogus=1"])("rejects %s with 400", (qs) => {
    let error: unknown;
    try {
      parseListQuery(new URLSearchParams(qs));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DdsError);
    expect((error as DdsError).status).toBe(400);
  });

  it("rejects unknown filter and sort fields, admits metadata.* keys", () => {
    expect(() => checkListQuery(LIST_SPECS.contexts, { filters: [{ field: "metadata.region", op: "eq", value: "x" }] })).not.toThrow();
    expect(() => checkListQuery(LIST_SPECS.contexts, { filters: [{ field: "colour", op: "eq", value: "x" }] })).toThrow(/unknown filter field "colour"/);
    expect(() => checkListQuery(LIST_SPECS.models, { sort: [{ field: "colour", desc: false }] })).toThrow(/unknown sort field "colour"/);
    expect(() => checkListQuery(LIST_SPECS.contexts, { filters: [{ field: "metadata.", op: "eq", value: "x" }] })).toThrow();
  });
});

describe("CLI --filter syntax", () => {
  it.each([
    ["status=active", { field: "status", op: "eq", value: "active" }],
    ["status!=archived", { field: "status", op: "ne", value: "archived" }],
    ["createdAt>=2026-01-01T00:00:00.000Z", { field: "createdAt", op: "gte", value: "2026-01-01T00:00:00.000Z" }],
    ["version<3", { field: "version", op: "lt", value: "3" }],
    ["name~=loan", { field: "name", op: "contains", value: "loan" }],
    ["status[in]=active,completed", { field: "status", op: "in", value: "active,completed" }],
    ["metadata.note=a=b", { field: "metadata.note", op: "eq", value: "a=b" }],
  ])("parses %s", (text, expected) => {
    expect(parseFilter(text)).toEqual(expected);
  });

  it("rejects text without an operator", () => {
    expect(() => parseFilter("status")).toThrow(/must look like field=value/);
  });
});
