/** The part of @michaelhomer/jqjs (a pure-JS jq, no types of its own) ddsctl uses. */
declare module "@michaelhomer/jqjs" {
  /** Compiles a jq program; the result yields every output for one input. Throws (a string or an Error) on a syntax error. */
  export function compile(program: string): (input: unknown) => Iterable<unknown>;
}
