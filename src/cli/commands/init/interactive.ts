import { errors } from "../../../contract/errors.js";

/**
 * True when a person can answer prompts: both stdin and stdout are terminals. Prompts
 * never appear otherwise (CI, pipes); every prompt has a flag instead.
 */
export function isInteractive(): boolean {
  return Boolean(process.stdin.isTTY && process.stdout.isTTY);
}

/** @inquirer/prompts, loaded only when a prompt is about to be shown (it is slow to load). */
export async function loadPrompts(): Promise<typeof import("@inquirer/prompts")> {
  return import("@inquirer/prompts");
}

/**
 * A value from its flag, else from a prompt on a TTY (unless `--yes`), else its default;
 * without any of those it is a usage error naming the flag.
 */
export async function flagOrPrompt(options: {
  value: string | undefined;
  flag: string;
  yes: boolean;
  fallback?: string;
  ask: () => Promise<string>;
}): Promise<string> {
  if (options.value !== undefined) return options.value;
  if (isInteractive() && !options.yes) return options.ask();
  if (options.fallback !== undefined) return options.fallback;
  throw errors.usage(`${options.flag} is required${isInteractive() ? " with --yes" : " when there is no terminal to ask on"}`);
}

/** Profile names become JSON keys and appear in messages: keep them simple. */
export function checkProfileName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
    throw errors.usage(`profile name "${name}" must be letters, digits, '.', '_' or '-' (at most 64), starting with a letter or digit`);
  }
  return name;
}
