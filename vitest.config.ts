import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // better-sqlite3 is a native addon: separate processes keep each file's handles apart.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
