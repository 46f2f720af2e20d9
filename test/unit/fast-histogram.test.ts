import { Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { FastHistogram } from "../../src/server/fast-histogram.js";

describe("FastHistogram", () => {
  it("writes exactly what prom-client's Histogram writes for the same observations", async () => {
    const config = { name: "h", help: "a histogram", labelNames: ["route", "status_class"] as const, buckets: [0.001, 0.01, 0.1, 1] };
    const fastRegistry = new Registry();
    const plainRegistry = new Registry();
    const fast = new FastHistogram({ ...config, registers: [fastRegistry] });
    const plain = new Histogram({ ...config, registers: [plainRegistry] });
    const observations: [string, string, number][] = [
      ["/v1/a", "2xx", 0.0005],
      ["/v1/a", "2xx", 0.001],
      ["/v1/a", "2xx", 0.5],
      ["/v1/a", "4xx", 3],
      ["/v1/b", "2xx", 0.05],
    ];
    for (const [route, statusClass, value] of observations) {
      fast.seriesFor(`${route} ${statusClass}`, { route, status_class: statusClass }).observe(value);
      plain.observe({ route, status_class: statusClass }, value);
    }
    expect(await fastRegistry.metrics()).toBe(await plainRegistry.metrics());
    fast.reset();
    plain.reset();
    expect(await fastRegistry.metrics()).toBe(await plainRegistry.metrics());
  });
});
