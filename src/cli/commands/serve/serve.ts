import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { Output } from "../../output.js";

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw errors.usage(`--port must be an integer from 0 to 65535, got "${value}"`);
  return n;
}

/** Resolves when SIGINT or SIGTERM arrives; a second signal cuts the drain short. */
function shutdownSignal(out: Output): { received: Promise<string>; dispose(): void } {
  let first = true;
  let resolve!: (signal: string) => void;
  const received = new Promise<string>((r) => (resolve = r));
  const onSignal = (signal: NodeJS.Signals) => {
    if (!first) {
      out.warn(`${signal} again: stopping without waiting for in-flight requests`);
      process.exit(1);
    }
    first = false;
    resolve(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    received,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** `ddsctl serve`: the REST API, the pipeline worker, on the local database. */
export default defineCommand({
  path: ["serve"],
  description: "serve the REST API (under /v1) and run the pipeline worker on the local database",
  examples: [
    "ddsctl serve --port 8080",
    "ddsctl --local /srv/dds.db serve --host 0.0.0.0 --port 8080 --quiet",
    "ddsctl serve --port 0   # any free port; the URL is printed on stderr",
  ],
  configure: (cmd) =>
    cmd.option("--port <port>", "TCP port (0 picks a free one)", "8080").option("--host <host>", "interface to listen on", "127.0.0.1"),
  async run(ctx, _args, flags) {
    const target = ctx.target();
    if (target.mode !== "local") {
      throw errors.usage(`serve runs on a local database; drop --remote/DDS_BASE_URL and pick the file with --local <db> or DDS_DB (target was ${target.baseUrl})`);
    }
    const port = parsePort(String(flags.port));
    const { out } = ctx;
    // The address and background failures are printed even under --quiet (which silences
    // the access log): with --port 0 the address is the only way to learn the port.
    const always = new Output({ ...out.options, quiet: false });
    const { createServer } = await import("../../../server/index.js");
    const { openDatabase } = await import("../../../engine/store/db.js");
    const store = await openDatabase(target.db);
    const signals = shutdownSignal(out);
    try {
      const server = await createServer({ store, quiet: out.options.quiet, log: (line) => always.info(line) }).listen(port, String(flags.host));
      out.info(out.c.dim(`local ${store.location}`));
      always.info(`listening on ${server.url}`);
      const signal = await signals.received;
      out.info(`${signal}: draining in-flight requests and the current pass`);
      await server.close();
      out.info("stopped");
    } finally {
      signals.dispose();
      await store.close();
    }
  },
});
