import { defineCommand } from "../../core/define-command.js";
import { loadStudio } from "../../load-external.js";
import { describeTarget } from "../../target.js";

/** `ddsctl studio`: the rule author's workbench in the browser, for the current target. */
export default defineCommand({
  command: "studio",
  description: "serve the browser workbench (cases, record graphs, traces, the rule editor) for the current target",
  examples: [
    "ddsctl demo && ddsctl studio --open",
    "ddsctl studio --port 0            # any free port; the URL is printed",
    "ddsctl --remote https://dds.example/v1 studio --tests tests/rules",
    "ddsctl studio --host 0.0.0.0 --allow-host 192.168.1.20   # reachable from the LAN at that address",
  ],
  args: {
    port: { type: "string", default: "4983", description: "TCP port on 127.0.0.1 (0 picks a free one)" },
    host: { type: "string", default: "127.0.0.1", description: "interface to listen on (0.0.0.0: every interface, with --allow-host)" },
    allowHost: {
      type: "strings",
      placeholder: "name",
      description: "a name or address browsers use to reach the studio (repeatable); required with --host 0.0.0.0",
    },
    open: { type: "boolean", description: "open the studio in the default browser" },
    tests: { type: "string", placeholder: "path", complete: "file", description: "rules test cases files (a file or directory) to run in the rule view" },
  },
  async handler(args, ctx) {
    // Loaded on use, from outside the bundle: its page's files sit beside it in dist/.
    const studio = await loadStudio();
    // Lazy: the cases file's zod schema is built on load; every command module loads at start-up (registry.ts).
    const { suitesForStudio } = await import("../../workbench/rules-test/studio-suites.js");
    const target = ctx.target();
    // The studio stops itself on Ctrl-C (closing its server first).
    ctx.handleInterrupt();
    const running = await studio.startStudio({
      target: target.mode === "local" ? { mode: "local", db: target.db, workspace: target.workspace } : { mode: "remote", baseUrl: target.baseUrl, token: target.token },
      port: studio.studioPort(args.port),
      host: args.host,
      allowHosts: args.allowHost,
      tests: args.tests !== undefined ? await suitesForStudio(args.tests) : undefined,
      log: (line) => ctx.out.warn(line),
      env: ctx.io.env,
    });
    ctx.out.info(`studio for ${describeTarget(target)}; Ctrl-C stops it`);
    ctx.out.line(running.url);
    if (args.open && !(await studio.openBrowser(running.url))) ctx.out.warn("could not start a browser: open the URL above yourself");
    const signal = await studio.nextStopSignal();
    ctx.out.info(`${signal}: stopping the studio`);
    await running.close();
  },
});
