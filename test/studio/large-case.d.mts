/** The large case's name. */
export const LARGE_CASE: string;
/** Writes the contributions of a case of `records` records (even, at least 4) to `file`. */
export function writeLargeCase(file: string, records?: number): void;
