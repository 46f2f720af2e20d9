import { describe, expect, it } from "vitest";
import { pathParams, ROUTES } from "../../src/contract/routes.js";
import { matchRoute, routeMethodsAt } from "../../src/server/route-table.js";

/** A raw path for a route's template with each parameter filled in (`p0`, `p1`, …). */
const pathOf = (path: string) => {
  let i = 0;
  return `/v1${path.replace(/\{[^}]+\}/g, () => `p${i++}`)}`;
};

describe("the compiled route table (read lane, 404 and 405)", () => {
  it("matches every route on a path of its own shape, with its arguments in path order", () => {
    for (const route of ROUTES) {
      const found = matchRoute(route.method, pathOf(route.path));
      expect(found?.route, `${route.method} ${route.path}`).toBe(route);
      expect(found!.args).toEqual(pathParams(route.path).map((_, i) => `p${i}`));
    }
  });

  it("prefers the table's order: /records/bulk is not a record called bulk", () => {
    expect(matchRoute("PATCH", "/v1/records/bulk")?.route.operation).toBe("bulkUpdateRecords");
    expect(matchRoute("GET", "/v1/records/0191")?.args).toEqual(["0191"]);
  });

  it("matches nothing outside /v1, across segments, or with another method", () => {
    expect(matchRoute("GET", "/contexts")).toBeUndefined();
    expect(matchRoute("GET", "/v1/contexts/a/b")).toBeUndefined();
    expect(matchRoute("PUT", "/v1/contexts")).toBeUndefined();
  });

  it("lists the methods a path has", () => {
    expect(routeMethodsAt("/v1/contexts").sort()).toEqual(["GET", "POST"]);
    expect(routeMethodsAt("/v1/nothing-here")).toEqual([]);
  });
});
