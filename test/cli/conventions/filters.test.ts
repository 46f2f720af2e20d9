import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDdsError } from "../../../src/contract/errors.js";
import { LIST_SPECS, type ListName, type ValueKind } from "../../../src/contract/list-query.js";
import { createLocalEngine } from "../../../src/engine/local-engine.js";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { createContext, expectErrorLine, ok, run, runBody, uniq } from "../support.js";

// Filter values are checked against the field's kind and enum: a typo is an error that
// says what is allowed, never an empty list.
let box: Sandbox;
let webhookId: string;
beforeAll(async () => {
  box = sandbox();
  await createContext(box, ["--name", uniq("filtered")]);
  webhookId = ok(await runBody(box, ["webhooks", "create"], { url: "https://example.com/filtered", events: ["context.resolved"] })).webhookId;
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

  it("every list command refuses every enum filter value outside its enum, as the service does (same message)", async () => {
    // One command per list: a new list does not compile until it is named here.
    const commands: Record<ListName, () => string[]> = {
      models: () => ["models", "list"],
      fields: () => ["fields", "list"],
      contexts: () => ["contexts", "list"],
      records: () => ["records", "list"],
      contributions: () => ["contributions", "list"],
      rules: () => ["rules", "list"],
      evaluations: () => ["evaluations", "list", "--rule", "any-rule"],
      webhooks: () => ["webhooks", "list"],
      deliveries: () => ["webhooks", "deliveries", webhookId],
    };
    let checked = 0;
    for (const [list, spec] of Object.entries(LIST_SPECS) as [ListName, (typeof LIST_SPECS)[ListName]][]) {
      for (const [field, kind] of Object.entries((spec.kinds ?? {}) as Readonly<Record<string, ValueKind>>)) {
        if (typeof kind === "string") continue;
        for (const filter of [`${field}=no-such-value`, `${field}!=no-such-value`, `${field}[in]=${kind[0]},no-such-value`]) {
          const line = expectErrorLine(await run(box, [...commands[list](), "--filter", filter]), 2);
          expect(line, `${list} ${filter}`).toBe(`error: filter ${field}: "no-such-value" is not valid; use one of ${kind.join(", ")}`);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3 * 12);
    expectErrorLine(await run(box, ["webhooks", "deliveries", webhookId, "--filter", "status=delivered"]), 2, /use one of pending, succeeded, failed \("delivered" is called "succeeded" now\)$/);
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
