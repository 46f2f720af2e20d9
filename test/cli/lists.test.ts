import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../helpers/cli.js";
import { createContext, createModel, expectErrorLine, expectProblem, ok, run, setStatus, uniq } from "./support.js";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

interface Ctx {
  contextId: string;
  name: string | null;
  createdAt: string;
}

/** Creates `n` contexts of `type`, a few processes at a time (they share one database). */
async function createMany(n: number, type: string, extra: (i: number) => string[] = () => []): Promise<Ctx[]> {
  const out: Ctx[] = [];
  for (let i = 0; i < n; i += 5) {
    const batch = Array.from({ length: Math.min(5, n - i) }, (_, j) => createContext(box, ["--type", type, "--name", `${type}-${String(i + j).padStart(2, "0")}`, ...extra(i + j)]));
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

/** One page of `contexts list --json`. */
async function page(args: string[]): Promise<{ data: Ctx[]; nextCursor: string | null; hasNextPage: boolean }> {
  return ok(await run(box, ["contexts", "list", ...args, "--json"]));
}

const ids = (rows: { contextId: string }[]) => rows.map((r) => r.contextId);

describe("cursor pagination", () => {
  it("walks 25 contexts in pages of 10: none repeated, none missing, last page ends the walk", async () => {
    const type = uniq("paged");
    const created = await createMany(25, type);
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 10; guard++) {
      const p = await page(["--filter", `type=${type}`, "--limit", "10", ...(cursor ? ["--cursor", cursor] : [])]);
      expect(Object.keys(p).sort()).toEqual(["data", "hasNextPage", "nextCursor"]);
      seen.push(...ids(p.data));
      sizes.push(p.data.length);
      if (!p.hasNextPage) {
        expect(p.nextCursor).toBeNull();
        break;
      }
      expect(typeof p.nextCursor).toBe("string");
      cursor = p.nextCursor;
    }
    expect(sizes).toEqual([10, 10, 5]);
    expect(new Set(seen).size).toBe(25);
    expect([...seen].sort()).toEqual(ids(created).sort());
    // Default order is createdAt ascending (ties by id).
    const byCreation = [...created].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.contextId.localeCompare(b.contextId));
    expect(seen).toEqual(ids(byCreation));
  });

  it("an exact multiple of the page size ends with hasNextPage false on the last full page or an empty page", async () => {
    const type = uniq("exact");
    await createMany(10, type);
    const p1 = await page(["--filter", `type=${type}`, "--limit", "5"]);
    expect(p1.hasNextPage).toBe(true);
    const p2 = await page(["--filter", `type=${type}`, "--limit", "5", "--cursor", p1.nextCursor!]);
    expect(p2.data).toHaveLength(5);
    expect(p2).toMatchObject({ hasNextPage: false, nextCursor: null });
  });

  for (const sort of [[], ["--sort", "-createdAt"], ["--sort", "name"]]) {
    it(`is stable under concurrent inserts (${sort.length ? sort.join(" ") : "default sort"})`, async () => {
      const type = uniq("live");
      const before = await createMany(10, type, (i) => (i % 2 ? [] : ["--metadata", "even=true"]));
      const args = ["--filter", `type=${type}`, "--limit", "4", ...sort];
      const first = await page(args);
      const seen = ids(first.data);
      let cursor = first.nextCursor;
      // New contexts arrive while the walk goes on: before the second page, and during it.
      await createMany(3, type);
      const [second] = await Promise.all([page([...args, "--cursor", cursor!]), createMany(3, type)]);
      seen.push(...ids(second.data));
      cursor = second.nextCursor;
      while (cursor) {
        const p = await page([...args, "--cursor", cursor]);
        seen.push(...ids(p.data));
        cursor = p.nextCursor;
      }
      expect(new Set(seen).size).toBe(seen.length);
      for (const c of before) expect(seen).toContain(c.contextId);
    });
  }

  it("--all follows every cursor and prints one last page", async () => {
    const type = uniq("all");
    const created = await createMany(7, type);
    const all = await page(["--filter", `type=${type}`, "--limit", "3", "--all"]);
    expect(all.hasNextPage).toBe(false);
    expect(all.nextCursor).toBeNull();
    expect(ids(all.data)).toEqual(ids(created.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.contextId.localeCompare(b.contextId))));
  });

  it("models list pages in its own envelope, and --all collects every page", async () => {
    const prefix = uniq("Paged");
    const made = [];
    for (const n of ["c", "a", "b"]) made.push(await createModel(box, { name: `${prefix}-${n}`, fields: [] }));
    const p1 = ok(await run(box, ["models", "list", "--filter", `name~=${prefix}`, "--sort", "name", "--limit", "2", "--json"]));
    expect(p1.models.map((m: { name: string }) => m.name)).toEqual([`${prefix}-a`, `${prefix}-b`]);
    expect(p1.hasNextPage).toBe(true);
    const p2 = ok(await run(box, ["models", "list", "--filter", `name~=${prefix}`, "--sort", "name", "--limit", "2", "--cursor", p1.nextCursor, "--json"]));
    expect(p2).toEqual({ models: [made[0]], nextCursor: null, hasNextPage: false });
    const all = ok(await run(box, ["models", "list", "--filter", `name~=${prefix}`, "--limit", "1", "--all", "--json"]));
    expect(all).toEqual({ models: made, nextCursor: null, hasNextPage: false });
  });
});

describe("filters and sort", () => {
  let type: string;
  let rows: Ctx[];
  beforeAll(async () => {
    type = uniq("filtered");
    rows = [];
    for (const [name, region] of [["b", "west"], ["c", "east"], ["a", "west"], ["d", "north"]]) {
      rows.push(await createContext(box, ["--type", type, "--name", `${type}-${name}`, "--metadata", `region=${region}`, "--metadata", `rank=${rows.length}`]));
    }
    await setStatus(box, "contexts", rows[1].contextId, "completed");
    await setStatus(box, "contexts", rows[3].contextId, "completed");
    await setStatus(box, "contexts", rows[3].contextId, "archived");
  });
  const names = (p: { data: Ctx[] }) => p.data.map((c) => c.name);
  const of = (...args: string[]) => page(["--filter", `type=${type}`, ...args]);

  it("type=… selects exactly the contexts of that type", async () => {
    expect(names(await of())).toEqual([`${type}-b`, `${type}-c`, `${type}-a`, `${type}-d`]);
    expect((await page(["--filter", `type=${uniq("none")}`])).data).toEqual([]);
  });

  it("status=completed", async () => {
    expect(names(await of("--filter", "status=completed"))).toEqual([`${type}-c`]);
  });

  it("status[in]=active,completed (REST spelling)", async () => {
    expect(names(await of("--filter", "status[in]=active,completed"))).toEqual([`${type}-b`, `${type}-c`, `${type}-a`]);
    expect(names(await of("--filter", "status!=active"))).toEqual([`${type}-c`, `${type}-d`]);
  });

  it("metadata.region=west reaches into metadata; numbers in metadata compare as numbers", async () => {
    expect(names(await of("--filter", "metadata.region=west"))).toEqual([`${type}-b`, `${type}-a`]);
    expect(names(await of("--filter", "metadata.rank>=2"))).toEqual([`${type}-a`, `${type}-d`]);
    expect(names(await of("--filter", "metadata.rank=1"))).toEqual([`${type}-c`]);
  });

  it("createdAt>=… and createdAt<…", async () => {
    expect(names(await of("--filter", `createdAt>=${rows[2].createdAt}`))).toEqual([`${type}-a`, `${type}-d`]);
    expect(names(await of("--filter", `createdAt<${rows[1].createdAt}`))).toEqual([`${type}-b`]);
    expect(names(await of("--filter", "createdAt>=2000-01-01"))).toHaveLength(4);
  });

  it("name~=… matches a substring, case-insensitively", async () => {
    expect(names(await of("--filter", `name~=${type.toUpperCase()}-A`))).toEqual([`${type}-a`]);
  });

  it("sort name, -name and -createdAt", async () => {
    expect(names(await of("--sort", "name"))).toEqual([`${type}-a`, `${type}-b`, `${type}-c`, `${type}-d`]);
    expect(names(await of("--sort", "-name"))).toEqual([`${type}-d`, `${type}-c`, `${type}-b`, `${type}-a`]);
    expect(names(await of("--sort", "-createdAt"))).toEqual([`${type}-d`, `${type}-a`, `${type}-c`, `${type}-b`]);
    expect(names(await of("--sort", "status,-name"))).toEqual([`${type}-b`, `${type}-a`, `${type}-d`, `${type}-c`]);
  });

  it("sorted pages continue correctly through the cursor", async () => {
    const p1 = await of("--sort", "-name", "--limit", "3");
    const p2 = await of("--sort", "-name", "--limit", "3", "--cursor", p1.nextCursor!);
    expect([...names(p1), ...names(p2)]).toEqual([`${type}-d`, `${type}-c`, `${type}-b`, `${type}-a`]);
  });

  it("filters combine with AND", async () => {
    expect(names(await of("--filter", "metadata.region=west", "--filter", "name~=-b"))).toEqual([`${type}-b`]);
  });

  it("prints a table with a header on a non-TTY without --json", async () => {
    const r = await run(box, ["contexts", "list", "--filter", `type=${type}`, "--sort", "name"]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0].split("\t")).toEqual(["NAME", "TYPE", "STATUS", "FRESHNESS", "UPDATED"]);
    expect(lines.slice(1).map((l) => l.split("\t")[0])).toEqual([`${type}-a`, `${type}-b`, `${type}-c`, `${type}-d`]);
  });
});

describe("list errors", () => {
  it("an unknown filter field is a usage error naming the field and the filterable ones (exit 2, checked before calling)", async () => {
    const p = expectProblem(await run(box, ["contexts", "list", "--filter", "colour=red", "--json"]), 2, 400, "invalid_request");
    expect(p.detail).toContain('"colour"');
    expectErrorLine(await run(box, ["models", "list", "--filter", "colour=red"]), 2, /unknown filter field "colour"; filterable: name, status/);
    expectErrorLine(await run(box, ["fields", "list", "--filter", "colour=red"]), 2, /"colour"/);
  });

  it("an unknown sort field is a usage error naming the field (exit 2)", async () => {
    expectErrorLine(await run(box, ["contexts", "list", "--sort", "-colour"]), 2, /unknown sort field "colour"/);
  });

  it("a cursor that is not one of ours is 400 (exit 1)", async () => {
    expectErrorLine(await run(box, ["contexts", "list", "--cursor", "garbage"]), 1, /cursor is invalid/);
  });

  it("--limit outside 1..500 or not an integer is a usage error (exit 2)", async () => {
    for (const limit of ["0", "501", "-1", "abc", "2.5"]) {
      expectErrorLine(await run(box, ["contexts", "list", "--limit", limit]), 2, /limit must be an integer from 1 to 500/);
    }
    expectErrorLine(await run(box, ["models", "list", "--limit", "0"]), 2);
    expect((await run(box, ["contexts", "list", "--limit", "500", "--json"])).exitCode).toBe(0);
  });

  it("a malformed --filter or unknown operator is a usage error (exit 2)", async () => {
    expectErrorLine(await run(box, ["contexts", "list", "--filter", "status"]), 2, /must look like field=value/);
    expectErrorLine(await run(box, ["contexts", "list", "--filter", "status[like]=x"]), 2, /unknown filter operator "like"/);
  });
});
