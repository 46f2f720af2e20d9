/**
 * The studio's other views in a real browser: a 2,000-record case (aggregated graph, a
 * virtualised record list), a link removed through the API drawn as removed, `trace diff`
 * against a saved point in time after new evidence arrived (the page follows on its own),
 * and a rule's tests with branch coverage on its tree (`--tests`).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, launchBrowser, type TestBrowser } from "./browser.js";
import { startStudioProcess, workdir, type StudioProcess, type Workdir } from "./harness.js";
import { LARGE_CASE, writeLargeCase } from "./large-case.mjs";

let w: Workdir;
let studio: StudioProcess;
let browser: TestBrowser;
let page: Page;
const ids = new Map<string, string>();

const TESTS = `
name: dti limit
rule: max-debt-to-income
cases:
  - name: low ratio passes
    data: { Loan.debtToIncome: 0.3 }
    expect: true
  - name: unknown ratio fails
    data: { Loan.debtToIncome: null }
    expect: false
  - name: the haddad case fails
    context: haddad-purchase
    expect: false
`;

beforeAll(async () => {
  w = workdir();
  await w.run(["demo", "--quiet"]);
  writeLargeCase(join(w.dir, "large.ndjson"));
  await w.run(["import", "contributions", "large.ndjson", "--create-contexts", "--quiet"]);
  for (const c of JSON.parse(await w.run(["contexts", "list", "--limit", "100", "--json", "--quiet"])).data) ids.set(c.name, c.contextId);
  writeFileSync(join(w.dir, "dti.test.yaml"), TESTS);
  studio = await startStudioProcess(w, ["--tests", "dti.test.yaml"]);
  browser = await launchBrowser();
  page = await browser.browser.newPage();
  await page.goto(studio.url);
  await page.locator('tr[data-case="haddad-purchase"]').waitFor();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
  w?.cleanup();
});

const oneLine = (t: string) => t.replace(/\s+/g, " ").trim();
const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });

describe("the studio's views in Chromium", () => {
  it("filters the cases by metadata, in the address", async () => {
    await page.goto(`${studio.origin}/cases?meta=region%3Dwest`);
    await page.locator('tr[data-case="mensah-purchase"]').waitFor();
    const regions = await page.locator("tbody tr td:nth-child(7)").allInnerTexts();
    expect(regions.length).toBeGreaterThan(0);
    for (const r of regions) expect(r).toContain("region=west");
    expect(await page.locator('input[name="meta"]').inputValue()).toBe("region=west");
  });

  it("draws a 2,000-record case as aggregates and lists a model's records virtually", async () => {
    await page.goto(`${studio.origin}/cases/${ids.get(LARGE_CASE)}`);
    const applicants = page.locator('[data-node="model:Applicant"]');
    await applicants.waitFor();
    expect(await applicants.textContent()).toContain("999 records");
    expect(await page.locator('[data-node="model:Employment"]').textContent()).toContain("999 records");
    // Every link is drawn as one counted bundle, not 4,000 lines.
    expect(await page.locator("[data-edge]").count()).toBeLessThan(10);
    expect(await page.locator('[data-edge="applicants"] .edge-label').textContent()).toContain("×999");
    await applicants.click();
    const list = page.getByRole("list", { name: "Applicant records" });
    await list.getByRole("listitem").first().waitFor();
    const rendered = await list.getByRole("listitem").count();
    expect(rendered).toBeLessThan(40);
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await list.getByRole("button", { name: "applicantId=a998" }).click();
    await page.locator('tr[data-field="fullName"]', { hasText: "Applicant 998" }).waitFor();
    await shot("06-large-case");
  });

  it("shows a link removed through the API as removed", async () => {
    const links = JSON.parse(await w.run(["relationships", "list", "--context", ids.get("okafor-purchase")!, "--json", "--quiet"])).data;
    const property = links.find((l: { relationshipName: string }) => l.relationshipName === "property");
    await w.run(["relationships", "remove", property.sourceRecordId, "property", property.targetRecordId, "--quiet"]);
    await page.goto(`${studio.origin}/cases/${ids.get("okafor-purchase")}`);
    const removed = page.locator('[data-edge="property:removed"]');
    await removed.waitFor();
    expect(await removed.locator(".edge-label").textContent()).toBe("property (removed)");
    expect(await page.locator('[data-edge="property"]').count()).toBe(0);
    await shot("07-removed-link");
  });

  it("diffs an evaluation against a saved point in time after new evidence", async () => {
    const haddad = ids.get("haddad-purchase")!;
    const rules = JSON.parse(await w.run(["rules", "list", "--json", "--quiet"])).data;
    const dti = rules.find((r: { name: string }) => r.name === "max-debt-to-income").ruleId;
    await page.goto(`${studio.origin}/cases/${haddad}/evaluations/${dti}`);
    await page.getByRole("button", { name: "Save this point in time" }).click();
    await page.locator("#diff", { hasText: "nothing changed" }).waitFor();
    // New evidence from another terminal: the bureau now reports 4,500 a month.
    await w.run(["contributions", "add", "--context", haddad, "--model", "Loan", "--source-id", "credit-bureau-2", "--source-type", "integration", "--data", "monthlyDebt=4500", "--quiet"]);
    const diff = page.locator("#diff");
    await diff.locator(".diff-input").waitFor({ timeout: 60_000 });
    expect((await diff.innerText()).replace(/\s+/g, " ")).toContain("Loan.debtToIncome: 0.4875 → 0.5625");
    // The first node whose value changed, in the order the tree reads.
    expect(await diff.locator("table").innerText()).toMatch(/and\.0\.!==\.0\s+var\s+0\.4875\s+0\.5625/);
    expect(await diff.innerText()).toContain("credit-bureau-2");
    expect(new URL(page.url()).searchParams.get("diff")).toMatch(/^snapshot:/);
    await shot("08-trace-diff");

    // Another case as the baseline, by its address.
    await page.goto(`${studio.origin}/cases/${haddad}/evaluations/${dti}?diff=case:${ids.get("banda-purchase")}`);
    await diff.locator("p", { hasText: "Outcome" }).waitFor();
    expect((await diff.locator("p", { hasText: "Outcome" }).innerText()).replace(/\s+/g, " ")).toBe("Outcome PASS → FAIL");
  });

  it("runs the rule's tests against the draft, with branch coverage on the tree", async () => {
    await page.goto(`${studio.origin}/rules`);
    await page.getByRole("link", { name: "max-debt-to-income" }).click();
    const summary = page.locator("#tests-summary");
    await summary.waitFor();
    expect(await summary.innerText()).toBe("3 of 3 cases pass against the draft · branch coverage 100% (3/3)");
    expect(await page.locator(".branch.covered").allInnerTexts()).toEqual(["✓ operand 0 false", "✓ operand 1 false", "✓ all true"]);
    // Raising the limit to 0.6 makes haddad pass: its case now fails, and the branch it took is lost.
    await page.locator(".cm-line", { hasText: "- 0.43" }).click();
    await page.keyboard.press("End");
    for (let i = 0; i < 4; i++) await page.keyboard.press("Backspace");
    await page.keyboard.type("0.6");
    await page.locator("#tests-summary", { hasText: "2 of 3" }).waitFor();
    expect(await summary.innerText()).toBe("2 of 3 cases pass against the draft · branch coverage 66.7% (2/3)");
    expect(await page.locator(".branch.uncovered").allInnerTexts()).toEqual(["✗ operand 1 false"]);
    expect(await page.locator(".cases li.failing").innerText()).toContain("the haddad case fails");
    await shot("09-rule-tests");
  });

  it("names the record of each element of an all in the trace", async () => {
    const ruleId = JSON.parse(await w.run(["rules", "get", "min-credit-score", "--json", "--quiet"])).ruleId;
    await page.goto(`${studio.origin}/cases/${ids.get("brennan-joint")}/evaluations/${ruleId}`);
    const second = page.locator('li[data-key="all.1[1]"] > .trace-line');
    await second.locator("[data-element-record]").waitFor();
    expect(oneLine(await page.locator('li[data-key="all.1[0]"] > .trace-line').innerText())).toMatch(/^▾ \[0 Applicant applicantId=a1\] >= → (true|false)/);
    expect(oneLine(await second.innerText())).toMatch(/^▾ \[1 Applicant applicantId=a2\] >= → (true|false)/);
  });

  it("at 1400 × 900 an open record's tables fit; whatever overflows scrolls in its own box", async () => {
    await page.setViewportSize({ width: 1400, height: 900 });
    try {
      await page.goto(`${studio.origin}/cases/${ids.get("haddad-purchase")}`);
      await page.locator("[data-node]", { hasText: "Loan" }).first().click();
      await page.locator('tr[data-field="monthlyDebt"]').getByRole("button", { name: "monthlyDebt" }).click();
      await page.getByRole("table", { name: "Candidates for monthlyDebt" }).waitFor();
      await shot("10-record-1400");
      expect(await layoutFaults()).toEqual([]);
      const fit = await page.locator("#record-panel").evaluate((panel) => {
        const edge = Math.min(panel.getBoundingClientRect().right, panel.ownerDocument.documentElement.clientWidth);
        return [...panel.querySelectorAll("table")].map((t) => ({ name: t.getAttribute("aria-label"), inside: t.getBoundingClientRect().right <= edge + 0.5 }));
      });
      expect(fit).toEqual([
        { name: "Fields", inside: true },
        { name: "Candidates for monthlyDebt", inside: true },
      ]);
      expect(await page.getByRole("columnheader", { name: "Candidates" }).isVisible()).toBe(true);
      // A narrow window stacks the columns; what is still too wide scrolls inside its panel.
      await page.setViewportSize({ width: 760, height: 900 });
      expect(await layoutFaults()).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it("keeps the last good dry run, impact and tests while the document does not parse, marked stale", async () => {
    const ruleId = JSON.parse(await w.run(["rules", "get", "max-debt-to-income", "--json", "--quiet"])).ruleId;
    await page.goto(`${studio.origin}/rules/${ruleId}?case=${ids.get("haddad-purchase")}`);
    await page.locator("#dry-run-outcome").waitFor();
    await page.locator("#tests-summary").waitFor();
    await page.locator("#impact-summary").waitFor();
    await page.locator("#impact-summary", { hasNotText: "updating" }).waitFor();
    const before = { impact: await page.locator("#impact-summary").innerText(), dryRun: await page.locator("#dry-run-outcome").innerText(), tests: await page.locator("#tests-summary").innerText() };
    expect(await page.locator("#stale-note").count()).toBe(0);

    // A syntax error: the results stay, marked stale.
    await page.locator(".cm-line", { hasText: "severity: high" }).click();
    await page.keyboard.press("End");
    await page.keyboard.type(": x");
    await page.locator("#problems .error").first().waitFor();
    await page.locator("#stale-note").waitFor();
    expect(await page.locator(".results.stale #impact").count()).toBe(1);
    expect(await page.locator(".results.stale #dry-run").count()).toBe(1);
    expect(await page.locator(".results.stale #tests").count()).toBe(1);
    expect({ impact: await page.locator("#impact-summary").innerText(), dryRun: await page.locator("#dry-run-outcome").innerText(), tests: await page.locator("#tests-summary").innerText() }).toEqual(before);
    await shot("11-rule-stale");
    for (let i = 0; i < 3; i++) await page.keyboard.press("Backspace");
    await page.locator("#problems .ok").waitFor();
    await page.locator("#stale-note").waitFor({ state: "detached" });

    // A field no model has is marked where it is read; Save stays off and the results stay stale.
    await page.locator(".cm-line", { hasText: "var: Loan.debtToIncome" }).nth(1).click();
    await page.keyboard.press("End");
    await page.keyboard.type("X");
    const problem = page.locator("#problems .error", { hasText: "debtToIncomeX" });
    await problem.waitFor();
    expect(await problem.innerText()).toMatch(/^expression at and\.1\.<=\.0\.var: "Loan\.debtToIncomeX": Loan has no field or relationship "debtToIncomeX" \(fields: amount, .*debtToIncome; relationships: applicants, property\)$/);
    expect(await page.locator("#save").isDisabled()).toBe(true);
    await page.locator("#stale-note").waitFor();
    expect(await page.locator("#impact-summary").innerText()).toBe(before.impact);
  });
});

/**
 * What the page cuts off without a scrollbar: the document wider than the window, a panel
 * whose content overflows it (its scrollbar would sit at the foot of a long panel), or an
 * element that clips content (overflow hidden) other than a one-line ellipsis.
 */
function layoutFaults(): Promise<string[]> {
  return page.locator("main").evaluate((main) => {
    const faults: string[] = [];
    const doc = main.ownerDocument;
    const view = doc.defaultView!;
    if (doc.documentElement.scrollWidth > view.innerWidth) faults.push(`the page is ${doc.documentElement.scrollWidth}px wide in a ${view.innerWidth}px window`);
    for (const el of main.querySelectorAll("*")) {
      if (el.scrollWidth <= el.clientWidth + 1) continue;
      const style = view.getComputedStyle(el);
      const what = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${String(el.className)}`;
      if (el.classList.contains("panel")) faults.push(`${what} overflows (${el.scrollWidth} > ${el.clientWidth})`);
      else if ((style.overflowX === "hidden" || style.overflowX === "clip") && style.textOverflow !== "ellipsis") faults.push(`${what} clips its content`);
    }
    return faults;
  });
}
