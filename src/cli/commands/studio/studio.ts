import { defineCommand } from "../../command.js";
import { describeTarget } from "../../target.js";

/** `ddsctl studio`: the rule author's workbench in the browser, for the current target. */
export default defineCommand({
  path: ["studio"],
  description: "serve the browser workbench (cases, record graphs, traces, the rule editor) for the current target",
  examples: [
    "ddsctl demo && ddsctl studio --open",
    "ddsctl studio --port 0            # any free port; the URL is printed",
    "ddsctl --remote https://dds.example/v1 studio --tests tests/rules",
  ],
  configure: (cmd) =>
    cmd
      .option("--port <port>", "TCP port on 127.0.0.1 (0 picks a free one)", "4983")
      .option("--host <host>", "interface to listen on", "127.0.0.1")
      .option("--open", "open the studio in the default browser")
      .option("--tests <path>", "rules test cases files (a file or directory) to run in the rule view"),
  async run(ctx, _args, flags) {
    // Loaded on use: `--help` of every other command stays fast.
    const studio = await import("../../../studio/index.js");
    const { suitesForStudio } = await import("../../workbench/studio-suites.js");
    const target = ctx.target();
    const running = await studio.startStudio({
      target: target.mode === "local" ? { mode: "local", db: target.db, workspace: target.workspace } : { mode: "remote", baseUrl: target.baseUrl, token: target.token },
      port: studio.studioPort(flags.port),
      host: String(flags.host),
      tests: typeof flags.tests === "string" ? await suitesForStudio(flags.tests) : undefined,
      log: (line) => ctx.out.warn(line),
    });
    ctx.out.info(`studio for ${describeTarget(target)}; Ctrl-C stops it`);
    ctx.out.line(running.url);
    if (flags.open && !(await studio.openBrowser(running.url))) ctx.out.warn("could not start a browser: open the URL above yourself");
    const signal = await studio.nextStopSignal();
    ctx.out.info(`${signal}: stopping the studio`);
    await running.close();
  },
});
