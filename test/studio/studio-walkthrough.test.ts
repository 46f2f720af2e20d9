/**
 * The rule author's walk through the studio in a real browser (Debian's Chromium), on the
 * demo's data: from the cases to the failing haddad-purchase / max-debt-to-income, its
 * deciding branch and its input's lineage, then the rule: a threshold edit changes the
 * impact, Save makes version 2 and the case's evaluation flips. Screenshots of each view
 * go to test-results/studio/.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, launchBrowser, type TestBrowser } from "./browser.js";
import { startStudioProcess, workdir, type StudioProcess, type Workdir } from "./harness.js";

let w: Workdir;
let studio: StudioProcess;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  w = workdir();
  await w.run(["demo", "--quiet"]);
  studio = await startStudioProcess(w);
  browser = await launchBrowser();
  page = await browser.browser.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
  w?.cleanup();
});

const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
const text = (selector: string) => page.locator(selector).innerText();
const oneLine = (t: string) => t.replace(/\s+/g, " ").trim();

describe("ddsctl studio in Chromium, on the demo", () => {
  it("shows the cases with their counts, and keeps the session key out of the address", async () => {
    await page.goto(studio.url);
    const row = page.locator('tr[data-case="haddad-purchase"]');
    await row.locator("td.num", { hasText: "9" }).first().waitFor();
    expect(await row.innerText()).toMatch(/mortgage\s+active\s+resolved\s+9\s+1/);
    expect(page.url()).toBe(`${studio.origin}/cases`);
    expect(page.url()).not.toContain(studio.key);
    await shot("01-cases");

    // The rule-outcome filter is a deep link: the failing cases of max-debt-to-income.
    const ruleId = await page.locator('select[name="rule"] option', { hasText: "max-debt-to-income" }).getAttribute("value");
    await page.goto(`${studio.origin}/cases?rule=${ruleId}&outcome=fail`);
    await page.locator("p", { hasText: "3 cases" }).waitFor();
    const names = await page.locator("tbody tr td:first-child").allInnerTexts();
    expect(names.sort()).toEqual(["haddad-purchase", "ibrahim-purchase", "oconnor-purchase"]);
  });

  it("opens a case: its record graph, a field's candidates and why the winner won", async () => {
    await page.goto(`${studio.origin}/cases`);
    await page.getByRole("link", { name: "haddad-purchase", exact: true }).click();
    await page.locator('[data-rule="max-debt-to-income"]').waitFor();
    // Failed first.
    expect(await page.locator(".evals li").first().getAttribute("data-rule")).toBe("max-debt-to-income");
    // The record graph is a chunk loaded on demand: wait for its four nodes.
    await page.locator("[data-node] .node-model").nth(3).waitFor();
    const models = await page.locator("[data-node] .node-model").allTextContents();
    expect(models.sort()).toEqual(["Applicant", "Employment", "Loan", "Property"]);
    // Keyboard: focus the Loan node and press Enter.
    await page.locator("[data-node]", { hasText: "Loan" }).focus();
    await page.keyboard.press("Enter");
    await page.locator('tr[data-field="monthlyDebt"]').getByRole("button", { name: "monthlyDebt" }).click();
    const winner = page.locator("tr.picked");
    await winner.waitFor();
    expect(await winner.innerText()).toMatch(/winner\s+3900\s+credit-bureau\s+integration\s+0\.9/);
    expect(await winner.innerText()).toContain("highest value 3900");
    expect(await page.locator('tr:not(.picked)[data-contribution]').innerText()).toMatch(/2100\s+application-form[\s\S]*lower value 2100/);
    expect(new URL(page.url()).searchParams.get("field")).toBe("monthlyDebt");
    await shot("02-case");
  });

  it("opens the failing evaluation: the deciding branch and its input's lineage", async () => {
    await page.getByRole("link", { name: "max-debt-to-income" }).click();
    await page.locator("#outcome .badge.fail").waitFor();
    const deciding = await page.locator('li[data-deciding="true"] > .trace-line').allInnerTexts();
    expect(deciding.map(oneLine)).toEqual(["▾ and → false @$", "▾ <= → false ◀ decided @and.1"]);
    expect(await page.locator('li[data-key="and.1.<=.0"] > .trace-line').innerText()).toContain("var Loan.debtToIncome → 0.4875");
    await page.locator('li[data-key="and.1.<=.0"]').getByRole("button", { name: "lineage of Loan.debtToIncome" }).click();
    const lineage = page.locator("#lineage");
    await lineage.locator('[data-source="credit-bureau"]').waitFor();
    expect(await lineage.innerText()).toMatch(/Loan\.monthlyDebt = 3900 ← credit-bureau \(integration, confidence 0\.9\) · max over 2 candidates/);
    expect(await lineage.innerText()).toContain("payslip-e1-2026-02");
    expect(new URL(page.url()).searchParams.get("input")).toBe("Loan.debtToIncome");
    await shot("03-evaluation");
  });

  it("edits the threshold: problems as you type, the impact changes, Save flips the evaluation", async () => {
    const evaluationUrl = page.url().split("?")[0];
    await page.getByRole("link", { name: "Edit the rule" }).click();
    const summary = page.locator("#impact-summary");
    await page.locator("#impact-summary", { hasText: "27 pass · 3 fail" }).waitFor();
    expect(await text("#dry-run-outcome")).toContain("FAIL");

    // A bad severity is reported while typing and Save is refused.
    await page.locator(".cm-line", { hasText: "severity: high" }).click();
    await page.keyboard.press("End");
    await page.keyboard.type("ish");
    await page.locator("#problems .error", { hasText: "severity must be one of" }).waitFor();
    expect(await page.locator("#save").isDisabled()).toBe(true);
    for (let i = 0; i < 3; i++) await page.keyboard.press("Backspace");
    await page.locator("#problems .ok").waitFor();

    // The threshold: 0.43 → 0.5.
    await page.locator(".cm-line", { hasText: "- 0.43" }).click();
    await page.keyboard.press("End");
    for (let i = 0; i < 4; i++) await page.keyboard.press("Backspace");
    await page.keyboard.type("0.5");
    await page.locator("#impact-summary", { hasText: "29 pass · 1 fail" }).waitFor();
    expect(await summary.innerText()).toBe("30 cases: 29 pass · 1 fail");
    expect(await text("#impact-flips")).toContain("2 would flip (fail → pass 2, pass → fail 0)");
    expect((await page.locator("[data-flip]").allInnerTexts()).map((t) => t.replace(/\s+/g, " ")).sort()).toEqual([
      "FAIL → PASS haddad-purchase",
      "FAIL → PASS ibrahim-purchase",
    ]);
    await page.locator("#dry-run-outcome", { hasText: "PASS" }).waitFor();
    expect(await text("#problems")).toContain("expression changed");
    await shot("04-rule");

    await page.locator("#save").click();
    await page.locator("#saved", { hasText: "Saved as version 2" }).waitFor();
    await page.getByRole("link", { name: "See the open case's evaluation" }).click();
    expect(page.url()).toBe(evaluationUrl);
    // The service re-evaluates the case with version 2; the page follows on its own.
    await page.locator("p.muted", { hasText: "evaluated with v2" }).waitFor({ timeout: 60_000 });
    await page.locator("#outcome .badge.pass").waitFor();
    expect(oneLine(await page.locator('li[data-key="and.1"] > .trace-line').innerText())).toBe("▾ <= → true ◀ decided @and.1");
    await shot("05-evaluation-after-save");
  });
});
