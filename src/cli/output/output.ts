import type { Problem } from "../../contract/errors.js";
import type { OutStream } from "../core/io.js";
import { compileJq, jqText, type JqFilter } from "./jq-filter.js";
import { nameLines, namedResources, type NamedResource } from "./resource-names.js";
import { layoutTable, tsvEscape, type Cell } from "./table-layout.js";
import { maxOf, pushAll } from "../../portable/arrays.js";

/** How results are printed: a table (the default), or `-o json|yaml|wide|name`. */
export type Format = "table" | "json" | "yaml" | "wide" | "name";

/** How the user asked for output. */
export interface OutputOptions {
  format: Format;
  color: boolean;
  quiet: boolean;
  /** `--jq`: filter every JSON body through this expression (format is json then). */
  jq?: string;
}

/** A column of a table: header and how to get the cell from a row. */
export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
  /** Colour a cell (TTY only). */
  style?: (text: string, row: T) => string;
  /** Shown only with `-o wide`. */
  wide?: boolean;
}

/** The streams an Output writes to. */
export interface OutputStreams {
  stdout: OutStream;
  stderr: OutStream;
}

type Chalk = typeof import("chalk").default;
type Yaml = typeof import("yaml");

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));

/**
 * The one place that writes to the terminal. Results go to stdout; messages, progress,
 * hints and errors go to stderr. Colour appears only on a TTY and never under NO_COLOR or
 * --no-color. Structured formats print exactly the API's body (json), the same as YAML,
 * or one `kind/name` line per resource.
 */
export class Output {
  readonly options: OutputOptions & { json: boolean };
  readonly stdoutTTY: boolean;
  readonly stderrTTY: boolean;
  private chalk?: Chalk;
  private yaml?: Yaml;
  private jq?: JqFilter;
  private readonly streams: OutputStreams;
  /** `-o name`: the resources of every body printed, until {@link flushNames}. */
  private readonly named: NamedResource[] = [];

  constructor(streams: OutputStreams, options: OutputOptions) {
    this.streams = streams;
    // `json` means "print the body, not a rendering": every structured format.
    this.options = { ...options, json: options.format === "json" || options.format === "yaml" || options.format === "name" };
    this.stdoutTTY = Boolean(streams.stdout.isTTY);
    this.stderrTTY = Boolean(streams.stderr.isTTY);
  }

  /** Loads chalk and yaml only when this run needs them, keeping start-up fast. */
  async init(): Promise<void> {
    // Lazy: chalk only for a terminal with colour; yaml is a side bundle, only for -o yaml.
    if (this.options.color && (this.stdoutTTY || this.stderrTTY)) this.chalk = (await import("chalk")).default;
    if (this.options.format === "yaml") this.yaml = await import("yaml");
    if (this.options.jq !== undefined) this.jq = await compileJq(this.options.jq);
  }

  /** Colour helpers that are identity functions when colour is off. */
  get c() {
    const ch = this.chalk;
    const wrap = (f: ((s: string) => string) | undefined) => (s: string) => (f ? f(s) : s);
    return {
      green: wrap(ch?.green),
      red: wrap(ch?.red),
      yellow: wrap(ch?.yellow),
      dim: wrap(ch?.dim),
      bold: wrap(ch?.bold),
      cyan: wrap(ch?.cyan),
    };
  }

  /** Writes a result body in the structured format asked for (JSON unless -o yaml|name), through `--jq` when given. */
  json(value: unknown): void {
    if (this.jq) return this.write(jqText(this.jq(value), this.stdoutTTY));
    if (this.options.format === "yaml" && this.yaml) return this.write(this.yaml.stringify(value, { aliasDuplicateObjects: false }));
    // Printed at the end of the command, once it is known which names others share.
    if (this.options.format === "name") return void pushAll(this.named, namedResources(value));
    this.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /**
   * `-o name`: prints the lines of every body given to {@link json}. `shared` tells which
   * context names other contexts carry too (names need not be unique): those are printed
   * by id, so each line finds its one resource again.
   */
  async flushNames(shared?: (contextNames: string[]) => Promise<ReadonlySet<string>>): Promise<void> {
    const found = this.named.splice(0);
    const names = [...new Set(found.filter((n) => n.kind === "context" && n.name !== undefined).map((n) => n.name!))];
    // Without the answer (the service failed meanwhile) the names are printed as they are.
    const taken = shared && names.length > 0 ? await shared(names).catch(() => undefined) : undefined;
    for (const line of nameLines(found, taken && new Set([...taken].map((n) => `context/${n}`)))) this.line(line);
  }

  /** Writes a line of result text to stdout. */
  line(text = ""): void {
    this.write(`${text}\n`);
  }

  /** Writes raw result text to stdout. */
  write(text: string): void {
    if (!this.streams.stdout.writableEnded && !this.streams.stdout.destroyed) this.streams.stdout.write(text);
  }

  /** Writes an informational message to stderr (suppressed by --quiet). */
  info(text: string): void {
    if (!this.options.quiet) this.streams.stderr.write(`${text}\n`);
  }

  /** Writes a line to stderr that --quiet does not silence (why a command stopped). */
  notice(text: string): void {
    this.streams.stderr.write(`${text}\n`);
  }

  /** Writes a warning to stderr (always shown). */
  warn(text: string): void {
    this.streams.stderr.write(`${this.c.yellow("warning:")} ${text}\n`);
  }

  /** Writes raw progress text to stderr without a newline (TTY progress bars). */
  progress(text: string): void {
    if (this.stderrTTY && !this.options.quiet) this.streams.stderr.write(text);
  }

  /**
   * The stream a progress bar (cli-progress) may draw on: stderr when it is a TTY and
   * --quiet is off, else undefined (no bar at all, so logs and pipes stay clean).
   */
  progressStream(): OutStream | undefined {
    return this.stderrTTY && !this.options.quiet ? this.streams.stderr : undefined;
  }

  /**
   * stdout as a stream, for results too large to build in memory (an `export` of NDJSON):
   * callers honour its backpressure instead of queueing writes.
   */
  resultStream(): OutStream {
    return this.streams.stdout;
  }

  /**
   * Writes an error: one line `error: <detail>`; with --json, the problem object instead.
   * When there are several per-path problems they follow, indented, one per line, on a
   * terminal and in a log alike: the detail names only the first.
   */
  error(problem: Problem, hint?: string): void {
    const err = this.streams.stderr;
    if (this.options.format === "json") {
      err.write(`${JSON.stringify(problem)}\n`);
      return;
    }
    err.write(`${this.c.red("error:")} ${problem.detail}\n`);
    if (problem.errors && problem.errors.length > 1) {
      for (const e of problem.errors) err.write(`  ${this.c.dim(e.path || "(body)")}: ${e.message}\n`);
    }
    if (hint && this.stderrTTY) err.write(`${this.c.dim(hint)}\n`);
  }

  /**
   * Renders rows: on a TTY a borderless table cut to the terminal's width (`-o wide`: every
   * column, nothing cut); otherwise TSV with a header line and escaped cells, so one row is
   * always one line. `empty` names the rows for the one-line message an empty list gets.
   */
  table<T>(rows: T[], columns: Column<T>[], empty?: string): void {
    if (rows.length === 0 && empty !== undefined) return this.info(`no ${empty} found`);
    const wide = this.options.format === "wide";
    const shown = columns.filter((c) => wide || !c.wide);
    if (!this.stdoutTTY) {
      this.line(shown.map((c) => c.header).join("\t"));
      for (const r of rows) this.line(shown.map((c) => tsvEscape(text(c.get(r)))).join("\t"));
      return;
    }
    const headers: Cell[] = shown.map((c) => ({ text: c.header, style: this.c.bold }));
    // Newlines and tabs inside a value would break the row: show them escaped.
    const cells = rows.map((r) => shown.map((c): Cell => ({ text: tsvEscape(text(c.get(r))), style: c.style ? (t) => c.style!(t, r) : undefined })));
    const width = wide ? undefined : (this.streams.stdout.columns ?? 80);
    for (const l of layoutTable(headers, cells, width)) this.line(l);
  }

  /** Renders one object as aligned `key: value` lines. */
  fields(pairs: [string, unknown][]): void {
    const width = maxOf(pairs.map(([k]) => k.length));
    for (const [k, v] of pairs) {
      const value = v === null || v === undefined ? "-" : typeof v === "object" ? JSON.stringify(v) : String(v);
      this.line(`${this.c.dim(`${k}:`.padEnd(width + 1))} ${value}`);
    }
  }
}
