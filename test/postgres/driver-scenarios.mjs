// Connection-loss scenarios for the `postgres` driver, run in a child process by
// driver-faults.test.ts, so that a driver which throws from a timer (and so kills its
// process) fails the test with its own stack instead of taking the test runner down.
//
//   node driver-scenarios.mjs <esm|cjs> <url> <scenario>
//
// Prints one JSON line: what each step settled to ("ok", "rejected:<code>" or "hang").
import { createRequire } from "node:module";

const [flavour, url, scenario] = process.argv.slice(2);
const postgres = flavour === "cjs" ? createRequire(import.meta.url)("postgres") : (await import("postgres")).default;

/** How long a step may take before it counts as hung. */
const STEP_MS = 5000;
const settle = (promise) =>
  Promise.race([
    Promise.resolve(promise).then(
      () => "ok",
      (err) => `rejected:${err?.code ?? err?.message}`,
    ),
    new Promise((resolve) => setTimeout(() => resolve("hang"), STEP_MS).unref()),
  ]);

const options = { onnotice: () => undefined, connect_timeout: 3 };
const sql = postgres(url, { ...options, max: 2 });
const killer = postgres(url, { ...options, max: 1 });
const kill = (pid) => killer`SELECT pg_terminate_backend(${pid})`;
const steps = {};

if (scenario === "reserved") {
  // ddsctl's Idempotency-Key marks live on a reserved connection (pg-key-locks.ts).
  const reserved = await sql.reserve();
  const [{ pid }] = await reserved`SELECT pg_backend_pid() AS pid`;
  await kill(pid);
  steps.first = await settle(reserved`SELECT 1`);
  steps.second = await settle(reserved`SELECT 2`);
  steps.third = await settle(reserved`SELECT 3`);
  steps.release = await settle(Promise.resolve().then(() => reserved.release()));
  steps.pool = await settle(sql`SELECT 4`);
  steps.reserveAgain = await settle(sql.reserve().then((r) => r`SELECT 5`.finally(() => r.release())));
} else if (scenario === "transaction") {
  // A transaction whose backend dies, and whose callback then runs more statements and throws.
  steps.begin = await settle(
    sql.begin(async (tx) => {
      const [{ pid }] = await tx`SELECT pg_backend_pid() AS pid`;
      await kill(pid);
      await tx`SELECT 1`.catch(() => undefined);
      await tx`SELECT 2`;
    }),
  );
  steps.pool = await settle(sql`SELECT 3`);
  steps.poolAgain = await settle(sql`SELECT 4`);
} else if (scenario === "pipelined") {
  // Statements queued on a connection (not yet flushed) when its backend dies.
  const reserved = await sql.reserve();
  const [{ pid }] = await reserved`SELECT pg_backend_pid() AS pid`;
  const killed = kill(pid);
  const queued = Array.from({ length: 20 }, (_, i) => settle(reserved`SELECT pg_sleep(0.01), ${i}::int AS i`));
  await killed;
  const outcomes = await Promise.all(queued);
  steps.queued = outcomes.includes("hang") ? "hang" : "settled";
  steps.after = await settle(reserved`SELECT 1`);
  steps.pool = await settle(sql`SELECT 2`);
} else if (scenario === "ended-while-connecting") {
  // A pool ended at once (ddsctl drops its pool when the database is found unreachable)
  // while its connections still start up: no promise of the driver's may go unhandled.
  let unhandled = 0;
  process.on("unhandledRejection", () => unhandled++);
  // Ended after 0 to 20 ms: one of those lands while a connection looks up its types.
  for (let i = 0; i < 80; i++) {
    const pool = postgres(url, { ...options, max: 2 });
    const queries = [pool`SELECT 1`, pool`SELECT 2`].map((q) => q.catch(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, i * 0.25));
    await pool.end({ timeout: 0 });
    await Promise.all(queries);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  steps.unhandled = String(unhandled);
  steps.pool = await settle(sql`SELECT 1`);
} else if (scenario === "hosts-down") {
  // Every host of a multi-host URL refuses: the query must fail, not retry forever.
  const down = postgres(url, { ...options, max: 1 });
  const cpu = process.cpuUsage();
  steps.query = await settle(down`SELECT 1`);
  steps.busyCpu = process.cpuUsage(cpu).user > 300_000 ? "spinning" : "quiet";
  await down.end({ timeout: 0 });
} else {
  throw new Error(`unknown scenario ${scenario}`);
}

console.log(JSON.stringify(steps));
await Promise.all([sql.end({ timeout: 1 }), killer.end({ timeout: 1 })]);
process.exit(0);
