import { defineConfig } from "vitest/config";

/**
 * Two projects: everything against the local engine, and the CLI tests once more with
 * every command going over HTTP to a real `ddsctl serve` (every command behaves the same in
 * both modes). Files that test local-only behaviour (the database file, profiles, the kill
 * test, prompts in a terminal, staleness the server's worker would clear) stay out of the
 * remote run.
 */
const LOCAL_ONLY = [
  "test/cli/help.test.ts",
  "test/cli/import/kill.test.ts",
  "test/cli/declarative/profiles.test.ts",
  "test/cli/declarative/demo.test.ts",
  "test/cli/declarative/fixtures.test.ts",
  "test/cli/declarative/models-wizard.test.ts",
  "test/cli/conventions/terminal.test.ts",
  "test/cli/conventions/stale-hint.test.ts",
  "test/cli/import/progress.test.ts",
  "test/cli/readme-tour.test.ts",
  // Like the tour: docs/cli.md's blocks run in a new folder on its own database, and serve one.
  "test/cli/cli-doc.test.ts",
  // Each starts its own serve, or reaches into the database file itself.
  "test/cli/import/remote.test.ts",
  "test/cli/declarative/wait.test.ts",
  // Runs the real binary on a database of its own to see what it loads.
  "test/cli/startup-loads.test.ts",
];

export default defineConfig({
  test: {
    // better-sqlite3 is a native addon: separate processes keep each file's handles apart.
    pool: "forks",
    // CLI tests spend most of their time waiting for the child processes they spawn, so
    // more workers than cores keeps both cores busy (vitest defaults to cores - 1).
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "local", include: ["test/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "remote",
          include: ["test/cli/**/*.test.ts"],
          exclude: LOCAL_ONLY,
          env: { DDS_TEST_REMOTE: "1" },
          globalSetup: ["test/helpers/remote-server.ts"],
        },
      },
    ],
  },
});
