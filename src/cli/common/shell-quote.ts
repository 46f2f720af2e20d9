/**
 * Quotes a word for a POSIX shell when it needs it, so a command the CLI prints (a hint,
 * the command that resumes an import) can be pasted as it is, whatever the names hold.
 */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `ddsctl <words…>`, each word quoted when it needs it. */
export function ddsctlCommand(words: string[]): string {
  return ["ddsctl", ...words.map(shellWord)].join(" ");
}
