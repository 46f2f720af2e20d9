import { errors } from "../../../contract/errors.js";

/** @inquirer/prompts, loaded only when a prompt is about to be shown (it is slow to load). */
export async function loadPrompts(): Promise<typeof import("@inquirer/prompts")> {
  return import("@inquirer/prompts");
}

/**
 * A value from its flag, else from a prompt on a TTY (unless `--yes`), else its default;
 * without any of those it is a usage error naming the flag.
 */
export async function flagOrPrompt(options: {
  /** Whether a person can answer (stdin and stdout are terminals). */
  interactive: boolean;
  value: string | undefined;
  flag: string;
  yes: boolean;
  fallback?: string;
  ask: () => Promise<string>;
}): Promise<string> {
  if (options.value !== undefined) return options.value;
  if (options.interactive && !options.yes) return options.ask();
  if (options.fallback !== undefined) return options.fallback;
  throw errors.usage(`${options.flag} is required${options.interactive ? " with --yes" : " when there is no terminal to ask on"}`);
}

/** Profile names become JSON keys and appear in messages: keep them simple. */
export function checkProfileName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
    throw errors.usage(`profile name "${name}" must be letters, digits, '.', '_' or '-' (at most 64), starting with a letter or digit`);
  }
  return name;
}
