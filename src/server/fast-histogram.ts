import { Histogram, type HistogramConfiguration, type LabelValues } from "prom-client";

/** One label set's counts: per bucket (not cumulative), sum and count. */
export interface Series {
  observe(value: number): void;
}

interface SeriesData extends Series {
  labels: Record<string, string | number>;
  counts: Float64Array;
  sum: number;
  count: number;
}

type Exposed<T extends string> = Awaited<ReturnType<Histogram<T>["get"]>>;

/**
 * A prom-client histogram for the request path. prom-client's `observe` validates and
 * hashes its labels on every call (about 0.6 µs here); this one hands out a series per
 * label set, kept by a key the caller builds, and observing through a series is a bucket
 * search and three additions. It registers and exposes like any Histogram (only what it
 * reports and resets differ), so the text format is prom-client's.
 */
export class FastHistogram<T extends string> extends Histogram<T> {
  private series: Map<string, SeriesData> | undefined;
  private readonly bounds: number[];
  private readonly metricName: string;
  private readonly metricHelp: string;

  constructor(config: HistogramConfiguration<T> & { buckets: number[] }) {
    super(config);
    this.bounds = [...config.buckets].sort((a, b) => a - b);
    this.metricName = config.name;
    this.metricHelp = config.help;
    this.series = new Map();
  }

  /** The series of `labels`, created on first use and found again by `key` (one string per label set). */
  seriesFor(key: string, labels: LabelValues<T>): Series {
    const series = (this.series ??= new Map());
    let s = series.get(key);
    if (!s) {
      const bounds = this.bounds;
      const data: SeriesData = {
        labels: { ...(labels as Record<string, string | number>) },
        counts: new Float64Array(bounds.length + 1),
        sum: 0,
        count: 0,
        observe(value: number) {
          let i = 0;
          while (i < bounds.length && value > bounds[i]) i++;
          data.counts[i]++;
          data.sum += value;
          data.count++;
        },
      };
      s = data;
      series.set(key, s);
    }
    return s;
  }

  override async get(): Promise<Exposed<T>> {
    const values: Exposed<T>["values"] = [];
    for (const s of this.series?.values() ?? []) {
      let cumulative = 0;
      const labels = s.labels as Partial<Record<T, string | number>>;
      this.bounds.forEach((le, i) => {
        cumulative += s.counts[i];
        values.push({ metricName: `${this.metricName}_bucket`, labels: { le, ...labels }, value: cumulative });
      });
      values.push({ metricName: `${this.metricName}_bucket`, labels: { le: "+Inf", ...labels }, value: s.count });
      values.push({ metricName: `${this.metricName}_sum`, labels, value: s.sum });
      values.push({ metricName: `${this.metricName}_count`, labels, value: s.count });
    }
    return { name: this.metricName, help: this.metricHelp, type: "histogram", values, aggregator: "sum" } as unknown as Exposed<T>;
  }

  /** What prom-client's registry reads to write the text format (a Histogram has it; its typings do not say so). */
  async getForPromString(): Promise<Exposed<T>> {
    return this.get();
  }

  override reset(): void {
    super.reset();
    this.series?.clear();
  }
}
