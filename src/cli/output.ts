import type { Problem } from "../contract/errors.js";

/** How the user asked for output. */
export interface OutputOptions {
  json: boolean;
  color: boolean;
  quiet: boolean;
}

/** A column of a table: header and how to get the cell from a row. */
export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
  /** Colour a cell (TTY only). */
  style?: (text: string, row: T) => string;
}

type Chalk = typeof import("chalk").default;

/**
 * The one place that writes to the terminal. Results go to stdout; messages, progress,
 * hints and errors go to stderr. Tables and colour appear only on a TTY and never under
 * NO_COLOR or --no-color; --json prints exactly the API's JSON.
 */
export class Output {
  readonly options: OutputOptions;
  readonly stdoutTTY = Boolean(process.stdout.isTTY);
  readonly stderrTTY = Boolean(process.stderr.isTTY);
  private chalk?: Chalk;

  constructor(options: OutputOptions) {
    this.options = options;
  }

  /** Loads chalk only when colour is wanted, keeping start-up fast. */
  async init(): Promise<void> {
    if (this.options.color && (this.stdoutTTY || this.stderrTTY)) {
      const { default: chalk } = await import("chalk");
      this.chalk = chalk;
    }
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

  /** Writes a JSON document to stdout (pretty on a TTY, one line otherwise? no: always pretty, stable). */
  json(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** Writes a line of result text to stdout. */
  line(text = ""): void {
    process.stdout.write(`${text}\n`);
  }

  /** Writes an informational message to stderr (suppressed by --quiet). */
  info(text: string): void {
    if (!this.options.quiet) process.stderr.write(`${text}\n`);
  }

  /** Writes a warning to stderr (always shown). */
  warn(text: string): void {
    process.stderr.write(`${this.c.yellow("warning:")} ${text}\n`);
  }

  /** Writes raw progress text to stderr without a newline (TTY progress bars). */
  progress(text: string): void {
    if (this.stderrTTY && !this.options.quiet) process.stderr.write(text);
  }

  /**
   * The stream a progress bar (cli-progress) may draw on: stderr when it is a TTY and
   * --quiet is off, else undefined (no bar at all, so logs and pipes stay clean).
   */
  progressStream(): NodeJS.WriteStream | undefined {
    return this.stderrTTY && !this.options.quiet ? process.stderr : undefined;
  }

  /**
   * stdout as a stream, for results too large to build in memory (an `export` of NDJSON):
   * callers honour its backpressure instead of queueing writes.
   */
  resultStream(): NodeJS.WriteStream {
    return process.stdout;
  }

  /**
   * Writes an error: one line `error: <detail>`; with --json, the problem object too.
   * On a TTY the per-path problems follow, indented, so people see every one.
   */
  error(problem: Problem, hint?: string): void {
    if (this.options.json) {
      process.stderr.write(`${JSON.stringify(problem)}\n`);
      return;
    }
    process.stderr.write(`${this.c.red("error:")} ${problem.detail}\n`);
    if (this.stderrTTY && problem.errors && problem.errors.length > 1) {
      for (const e of problem.errors) process.stderr.write(`  ${this.c.dim(e.path || "(body)")}: ${e.message}\n`);
    }
    if (hint && this.stderrTTY) process.stderr.write(`${this.c.dim(hint)}\n`);
  }

  /** Renders rows as a table on a TTY, or as tab-separated lines with a header otherwise. */
  async table<T>(rows: T[], columns: Column<T>[]): Promise<void> {
    const cell = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));
    if (!this.stdoutTTY) {
      this.line(columns.map((c) => c.header).join("\t"));
      for (const r of rows) this.line(columns.map((c) => cell(c.get(r))).join("\t"));
      return;
    }
    const { default: Table } = await import("cli-table3");
    const table = new Table({
      head: columns.map((c) => this.c.bold(c.header)),
      style: { head: [], border: this.chalk ? ["grey"] : [] },
    });
    for (const r of rows) table.push(columns.map((c) => (c.style ? c.style(cell(c.get(r)), r) : cell(c.get(r)))));
    this.line(table.toString());
  }

  /** Renders one object as aligned `key: value` lines. */
  fields(pairs: [string, unknown][]): void {
    const width = Math.max(...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs) {
      const text = v === null || v === undefined ? "-" : typeof v === "object" ? JSON.stringify(v) : String(v);
      this.line(`${this.c.dim(`${k}:`.padEnd(width + 1))} ${text}`);
    }
  }
}
