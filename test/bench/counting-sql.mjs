// Counts what the engine asks of the database at the port: statements, and round trips
// (a statement issued while another of the same transaction is still in flight is
// pipelined by the PostgreSQL driver and costs no round trip of its own). BEGIN and
// COMMIT count as a round trip each, and a writing transaction's NOTIFY as one more.
const WRITE = /^\s*(INSERT|UPDATE|DELETE)\b/i;

export function countingSql(root) {
  let statements = 0;
  let roundTrips = 0;
  const wrap = (sql, tx) => {
    const state = { inFlight: 0, wrote: false };
    const count = (text, promise) => {
      statements++;
      if (WRITE.test(text)) state.wrote = true;
      if (!tx || state.inFlight === 0) roundTrips++;
      state.inFlight++;
      return promise.finally(() => state.inFlight--);
    };
    // A transaction's wrapper inherits from it, so SQLite's synchronous statements
    // (sqliteStatement checks the transaction's class) still reach its connection.
    const wrapped = {
      dialect: sql.dialect,
      memo: sql.memo,
      ...(typeof sql.statement === "function" ? { statement: (text) => countingStatement(sql.statement(text)) } : {}),
      all: (text, params) => count(text, sql.all(text, params)),
      get: (text, params) => count(text, sql.get(text, params)),
      run: (text, params) => count(text, sql.run(text, params)),
      signal: (s) => sql.signal(s),
      async tx(fn, options) {
        roundTrips += tx ? 2 : 2; // BEGIN / SAVEPOINT and COMMIT / RELEASE
        statements += 2;
        let inner;
        const result = await sql.tx((t) => fn((inner = wrap(t, true))), options);
        if (!tx && inner?.state?.wrote) {
          roundTrips++;
          statements++;
        }
        return result;
      },
      state,
    };
    return tx ? Object.setPrototypeOf(wrapped, sql) : wrapped;
  };
  /** A prepared SQLite statement whose runs count as statements (in-process: no round trips). */
  const countingStatement = (stmt) => {
    const proxy = new Proxy(stmt, {
      get(target, name) {
        const value = target[name];
        if (typeof value !== "function") return value;
        if (name === "run" || name === "get" || name === "all" || name === "iterate") return (...args) => (statements++, value.apply(target, args));
        // raw(), pluck(), expand() return the statement itself: keep counting through it.
        return (...args) => {
          const out = value.apply(target, args);
          return out === target ? proxy : out;
        };
      },
    });
    return proxy;
  };
  return {
    sql: wrap(root, false),
    reset() {
      statements = 0;
      roundTrips = 0;
    },
    totals: () => ({ statements, roundTrips }),
  };
}
