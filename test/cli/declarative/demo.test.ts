import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { expectExit } from "./helpers.js";

describe("demo", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  it("seeds the bundled fixtures from any directory and shows contexts, rules and a FAIL trace", async () => {
    const started = Date.now();
    const r = await expectExit(box, ["demo"], 0, { env: { CI: "true" } });
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(r.stdout).toMatch(/^Contexts$/m);
    expect(r.stdout).toMatch(/^okafor-purchase\tactive\tresolved\t10\t0$/m);
    expect(r.stdout).toMatch(/^oconnor-purchase\tactive\tresolved\t7\t3$/m);
    expect(r.stdout).toMatch(/^max-loan-to-value\teligibility\tcritical\t25\t5$/m);
    expect(r.stdout).toMatch(/^Why haddad-purchase fails max-debt-to-income$/m);
    expect(r.stdout).toMatch(/var Loan\.debtToIncome → 0\.4875/);
    expect(r.stdout).toMatch(/^FAIL$/m);
    expect(r.stderr).toMatch(/fixtures\/mortgage: 44 created/);
    expect(r.stderr).toMatch(/next steps/);
    // Next steps in the words a user types: names and relative paths, no ids.
    const steps = r.stderr.slice(r.stderr.indexOf("next steps"));
    expect(steps).toContain("ddsctl trace haddad-purchase max-debt-to-income");
    expect(steps).toContain("ddsctl records list --context haddad-purchase -o name");
    expect(steps).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/);
    expect(steps).not.toMatch(/(^|\s)\//m);
    // Each works as printed.
    const traced = await expectExit(box, ["trace", "haddad-purchase", "max-debt-to-income"], 0);
    expect(traced.stdout).toMatch(/^context: +haddad-purchase \(/m);
  });

  it("is idempotent: a second run applies nothing and shows the same numbers (--json)", async () => {
    const r = await expectExit(box, ["demo", "--json"], 0);
    expect(r.stderr).toMatch(/fixtures\/mortgage: no changes/);
    const report = r.json();
    expect(report.contexts).toHaveLength(30);
    expect(report.rules).toHaveLength(10);
    expect(report.trace).toMatchObject({ outcome: false, rule: { name: "max-debt-to-income" } });
    expect(report.traceContext).toBe("haddad-purchase");
  });

  it("--fresh starts from an empty local database", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ddsctl-demo-"));
    const db = join(dir, "demo.db");
    await expectExit(box, ["--local", db, "contexts", "create", "--name", "mine"], 0);
    const refused = await expectExit(box, ["--local", db, "demo", "--fresh", "--json"], 2);
    expect(refused.stderr).toMatch(/--yes/);
    expect((await expectExit(box, ["--local", db, "contexts", "list", "--json"], 0)).json().data).toHaveLength(1);
    const r = await expectExit(box, ["--local", db, "demo", "--fresh", "--yes", "--json"], 0);
    expect(r.stderr).toMatch(/removed .*demo\.db/);
    expect(existsSync(db)).toBe(true);
    const contexts = (await expectExit(box, ["--local", db, "contexts", "list", "--all", "--json"], 0)).json().data as { name: string }[];
    expect(contexts.map((c) => c.name)).not.toContain("mine");
    expect(contexts).toHaveLength(30);
  });

  it("--fresh refuses a remote target", async () => {
    const r = await expectExit(box, ["--remote", "http://127.0.0.1:1/v1", "--token", "t", "demo", "--fresh"], 2);
    expect(r.stderr).toMatch(/--fresh deletes a local database file/);
  });
});
