/**
 * fast-check arbitraries for random JSON Logic expressions over the standard operators,
 * and for data objects their `var`s can reach (including arrays long enough to hit the
 * trace cap).
 */
import fc from "fast-check";

const scalar = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(0.5, -1.5, 1000, -0),
  fc.constantFrom("", "0", "1", "a", "abc", "1.5", " 2", "true", "x.y", "-3"),
  fc.string({ maxLength: 3 }),
  fc.boolean(),
  fc.constant(null),
);

/** Random data shaped like a small case: scalars, arrays, nested objects, optional keys. */
export const dataArbitrary = fc.record(
  {
    a: scalar,
    b: scalar,
    n: fc.integer({ min: -10, max: 10 }),
    s: fc.string({ maxLength: 4 }),
    arr: fc.array(scalar, { maxLength: 5 }),
    obj: fc.record({ x: scalar, y: fc.array(scalar, { maxLength: 3 }) }, { requiredKeys: [] }),
    items: fc.array(fc.record({ v: scalar, w: scalar }, { requiredKeys: [] }), { maxLength: 25 }),
  },
  { requiredKeys: [] },
);

// Top-level paths, element paths (items, reduce's current/accumulator), numbers, misses.
const path = fc.constantFrom<unknown>(
  "", "a", "b", "n", "s", "arr", "arr.0", "arr.1", "arr.length", "obj", "obj.x", "obj.y", "obj.y.0",
  "items", "items.0.v", "zz", "a.b", "s.length", "v", "w", "current", "accumulator", "current.v", 0, 1, null,
);

/** Options of {@link expressionArbitrary}. */
export interface ExpressionArbitraryOptions {
  /** Allow `min`/`max` with exactly one argument (differs when extra operators are on). */
  singleArgMinMax: boolean;
}

/** Random expressions nested up to depth ~4. */
export function expressionArbitrary({ singleArgMinMax }: ExpressionArbitraryOptions): fc.Arbitrary<unknown> {
  const depthIdentifier = fc.createDepthIdentifier();
  return fc.letrec((tie) => {
    const sub = tie("expr");
    const args = (minLength: number, maxLength: number) =>
      fc.array(sub, { minLength, maxLength, depthIdentifier });
    // Weights follow the number of operators in each group so every operator is common.
    const w = (weight: number, arbitrary: fc.Arbitrary<unknown>) => ({ weight, arbitrary });
    const op = (names: string[], argList: fc.Arbitrary<unknown>) =>
      fc.tuple(fc.constantFrom(...names), argList).map(([name, a]) => ({ [name]: a }));
    // Scoped operators mostly iterate over real arrays, so their element logic runs.
    const source = fc.oneof(
      w(2, fc.constantFrom("arr", "items", "obj.y", "").map((p) => ({ var: p }))),
      w(1, sub),
      w(1, args(0, 4)),
    );
    const minMaxArgs = singleArgMinMax ? args(0, 4) : fc.oneof(args(0, 0), args(2, 4));
    return {
      expr: fc.oneof({ maxDepth: 4, depthIdentifier, depthSize: "medium" }, w(1, tie("leaf")), w(3, tie("node"))),
      leaf: fc.oneof(
        w(4, scalar),
        w(4, path.map((p) => ({ var: p }))),
        w(2, fc.tuple(path, scalar).map((p) => ({ var: p }))),
        w(1, fc.constant({ x: 1, y: [2] })),
      ),
      node: fc.oneof(
        w(12, op(["==", "===", "!=", "!==", ">", ">=", "<", "<=", "%", "/", "-", "in"], args(0, 3))),
        w(7, op(["+", "cat", "merge", "and", "or", "if", "?:"], args(0, 5))),
        w(1, op(["*"], args(1, 4))),
        w(2, op(["min", "max"], minMaxArgs)),
        w(6, op(["!", "!!", "-", "+", "log", "var"], sub)),
        w(1, op(["substr"], args(1, 3))),
        w(1, op(["var"], fc.tuple(sub, sub))),
        w(1, op(["missing"], fc.oneof(fc.array(path, { maxLength: 3 }), sub))),
        // A literal null key list is refused at compile time (json-logic-js throws on it
        // whenever it runs), so only computed key lists may turn out null.
        w(1, op(["missing_some"], fc.oneof(fc.tuple(sub, fc.array(path, { maxLength: 3 })), fc.tuple(sub, sub).filter(([, keys]) => keys !== null)))),
        w(5, op(["map", "filter", "all", "some", "none"], fc.tuple(source, sub))),
        w(2, op(["reduce"], fc.oneof(fc.tuple(source, sub, sub), fc.tuple(source, sub)))),
        w(2, args(0, 3)),
      ),
    };
  }).expr;
}
