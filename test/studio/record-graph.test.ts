/**
 * The record graph in Chromium, on every case of the demo: no edge label overlaps a record's
 * box or another label (bounding boxes as the browser draws them), and the graph's layout
 * library arrives in a chunk of its own, only once a case is opened.
 */
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, launchBrowser, type TestBrowser } from "./browser.js";
import { startStudioProcess, workdir, type StudioProcess, type Workdir } from "./harness.js";

let w: Workdir;
let studio: StudioProcess;
let browser: TestBrowser;
let page: Page;
let cases: { name: string; contextId: string }[];

beforeAll(async () => {
  w = workdir();
  await w.run(["demo", "--quiet"]);
  cases = JSON.parse(await w.run(["contexts", "list", "--limit", "100", "--json", "--quiet"])).data;
  studio = await startStudioProcess(w);
  browser = await launchBrowser();
  page = await browser.browser.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
  w?.cleanup();
});

interface Box {
  what: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Every label's and node's box as drawn (playwright's boundingBox: page coordinates). */
async function boxes(p: Page): Promise<{ labels: Box[]; nodes: Box[] }> {
  const box = async (what: string, el: Locator): Promise<Box> => {
    const b = (await el.boundingBox())!;
    return { what, left: b.x, top: b.y, right: b.x + b.width, bottom: b.y + b.height };
  };
  const labels = await Promise.all((await p.locator(".graph .edge-label").all()).map(async (el) => box(`label "${await el.textContent()}"`, el)));
  const nodes = await Promise.all((await p.locator(".graph .node").all()).map(async (el) => box(`node ${await el.getAttribute("aria-label")}`, el.locator("rect"))));
  return { labels, nodes };
}

/** True when two boxes share more than a hair (half a pixel, for rounding). */
const overlap = (a: Box, b: Box) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;

describe("the record graph", () => {
  it("loads its layout library only when a case is opened", async () => {
    const scripts: string[] = [];
    page.on("request", (r) => {
      if (r.resourceType() === "script") scripts.push(new URL(r.url()).pathname);
    });
    await page.goto(studio.url);
    await page.locator('tr[data-case="haddad-purchase"]').waitFor();
    const before = scripts.length;
    await page.goto(`${studio.origin}/cases/${cases.find((c) => c.name === "chen-joint")!.contextId}`);
    await page.locator(".graph .node").first().waitFor();
    expect(scripts.slice(0, before).some((s) => s.startsWith("/chunks/record-graph-"))).toBe(false);
    expect(scripts.slice(before).some((s) => s.startsWith("/chunks/record-graph-"))).toBe(true);
  });

  it("on every demo case, no edge label overlaps a record's box or another label", async () => {
    expect(cases).toHaveLength(30);
    let most = 0;
    const problems: string[] = [];
    for (const c of cases) {
      await page.goto(`${studio.origin}/cases/${c.contextId}`);
      await page.locator(".graph .node").first().waitFor();
      const { labels, nodes } = await boxes(page);
      most = Math.max(most, labels.length);
      for (const [i, label] of labels.entries()) {
        for (const node of nodes) if (overlap(label, node)) problems.push(`${c.name}: ${label.what} overlaps ${node.what}`);
        for (const other of labels.slice(i + 1)) if (overlap(label, other)) problems.push(`${c.name}: ${label.what} overlaps ${other.what}`);
      }
      if (c.name === "chen-joint") await page.screenshot({ path: `${ARTIFACTS}/10-record-graph-labels.png`, fullPage: true });
    }
    // The joint cases draw a dozen labels: the check is not vacuous.
    expect(most).toBeGreaterThanOrEqual(8);
    expect(problems).toEqual([]);
  }, 120_000);
});
