/**
 * Other spellings of command words, as gh and kubectl users type them: the singular of
 * every noun and a short form where one is common (`context list`, `ctx ls`), and `ls`/`rm`
 * for the verbs list, delete and remove. The parser, the start-up shortcut in main.ts and
 * completion all read this one table.
 */

/** Noun → its other spellings. */
export const NOUN_ALIASES: Readonly<Record<string, readonly string[]>> = {
  models: ["model"],
  fields: ["field"],
  contexts: ["context", "ctx"],
  contributions: ["contribution", "contrib"],
  records: ["record", "rec"],
  relationships: ["relationship", "rel"],
  rules: ["rule"],
  evaluations: ["evaluation", "evals"],
  webhooks: ["webhook"],
  tokens: ["token"],
  workspaces: ["workspace", "ws"],
  profiles: ["profile"],
  secrets: ["secret"],
};

/** Verb → its other spellings (no noun has both delete and remove, so `rm` is never ambiguous). */
export const VERB_ALIASES: Readonly<Record<string, readonly string[]>> = {
  list: ["ls"],
  delete: ["rm"],
  remove: ["rm"],
};

const NOUN_OF = new Map(Object.entries(NOUN_ALIASES).flatMap(([noun, aliases]) => aliases.map((a) => [a, noun] as const)));

/** The noun an alias stands for (`ctx` → `contexts`), or the word itself. */
export function canonicalNoun(word: string): string {
  return NOUN_OF.get(word) ?? word;
}

/** The verb of `verbs` an alias stands for (`rm` → `delete` where the noun has delete), or the word itself. */
export function canonicalVerb(word: string, verbs: readonly string[]): string {
  if (verbs.includes(word)) return word;
  return verbs.find((v) => VERB_ALIASES[v]?.includes(word)) ?? word;
}
