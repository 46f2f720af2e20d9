/**
 * What the studio's page receives from `GET /studio/tests.json`: typed here, where the
 * server that builds it and the page that runs it both see it.
 */

/** One `rules test` suite as the studio serves it to the page (`GET /studio/tests.json`). */
export interface StudioSuite {
  name: string;
  file: string;
  /** The rule it tests, by name or ruleId (from `rule: <name>` or the rule file's name); null for an inline expression. */
  rule: string | null;
  /** The cases, as the cases file holds them. */
  cases: { name: string; data?: Record<string, unknown>; context?: string; expect: boolean; expectValues?: Record<string, unknown> }[];
}
