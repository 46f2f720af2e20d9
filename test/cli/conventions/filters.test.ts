import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDdsError } from "../../../src/contract/errors.js";
import { createLocalEngine } from "../../../src/engine/local-engine.js";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { createContext, expectErrorLine, ok, run, uniq } from "../support.js";

// Filter values are checked against the field's kind and enum: a typo is an error that
// says what is allowed, never an empty list.
let box: Sandbox;
beforeAll(async () => {
  box = sandbox();
  await createContext(box, ["--name", uniq("filtered")]);
});
afterAll(() => box.cleanup());

describe("the CLI checks filter values before calling (exit 2)", () => {
  it("an enum value that does not exist lists the allowed ones", async () => {
    expectErrorLine(await run(box, ["contexts", "list", "--filter", "status=actve"]), 2, /filter status: "actve" is not valid; use one of active, completed, archived/);
    expectErrorLine(await run(box, ["contexts", "list", "--filter", "status[in]=active,done"]), 2, /"done"/);
    expectErrorLine(await run(box, ["rules", "list", "--filter", "severity=urgent"]), 2, /low, medium, high, critical/);
  });

  it("a time that is not ISO 8601, a non-integer version, a non-boolean outcome, a non-UUID id", async () => {
    expectErrorLine(await run(box, ["contexts", "list", "--filter", "createdAt>=yesterday"]), 2, /ISO 8601/);
    expectErrorLine(await run(box, ["models", "list", "--filter", "version=two"]), 2, /an integer/);
    expectErrorLine(await run(box, ["evaluations", "list", "--rule", "x", "--filter", "outcome=yes"]), 2, /true or false/);
    expectErrorLine(await run(box, ["records", "list", "--filter", "modelId=Loan"]), 2, /UUID/);
  });

  it("valid values still filter", async () => {
    expect(ok(await run(box, ["contexts", "list", "--filter", "status=active", "--filter", "createdAt>=2020-01-01", "--json"])).data.length).toBeGreaterThan(0);
    expect(ok(await run(box, ["contexts", "list", "--filter", "status=archived", "--json"])).data).toEqual([]);
  });
});

describe("the service refuses the same values (400)", () => {
  it("listContexts with status=actve is invalid_request", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ddsctl-filter-"));
    const engine = await createLocalEngine({ db: join(dir, "dds.db"), workspace: "default" });
    try {
      const err = await engine.listContexts({ filters: [{ field: "status", op: "eq", value: "actve" }] }).catch((e: unknown) => e);
      expect(isDdsError(err) && err.status === 400 && /one of active, completed, archived/.test(err.message)).toBe(true);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
