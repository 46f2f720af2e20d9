import { DEFAULT_RATE_LIMITS, formatRateSpec, parseRateSpec, type RateSpec } from "../../contract/rate-limit.js";
import type { StringArg } from "../core/args.js";

/** `serve`'s rate-limit flags, declared once: each with its variable (docs/deployment.md). */
export const rateLimitArgs = {
  workspaceRate: {
    type: "string",
    placeholder: "limit",
    env: "DDS_WORKSPACE_RATE",
    description: `each workspace's rate limit, in cost units per window, unless it has its own (default ${formatRateSpec(DEFAULT_RATE_LIMITS.workspace)}; off for none)`,
  } satisfies StringArg,
  tokenRate: {
    type: "string",
    placeholder: "limit",
    env: "DDS_TOKEN_RATE",
    description: `each token's rate limit within its workspace's, unless it has its own (default ${formatRateSpec(DEFAULT_RATE_LIMITS.token)}; off for none)`,
  } satisfies StringArg,
};

/** The flag → variable pairs of {@link rateLimitArgs}. */
export const RATE_LIMIT_VARIABLES = { "--workspace-rate": "DDS_WORKSPACE_RATE", "--token-rate": "DDS_TOKEN_RATE" } as const;

/** The limits `serve` applies to workspaces and tokens without their own (null: none). */
export interface RateLimitSettings {
  workspace: RateSpec | null;
  token: RateSpec | null;
}

/**
 * Reads the rate-limit settings: a flag wins over its variable, else the default; `off` or
 * `0` turns that limit off; anything unreadable is a usage error (exit 2) naming the flag or
 * variable it came from.
 */
export function rateLimitSettings(flags: { workspaceRate?: string; tokenRate?: string }, sourceOf: (key: string) => string): RateLimitSettings {
  // The flag or its variable (declared with the flag, read by the command line's parser).
  const read = (value: string | undefined, key: string, flag: keyof typeof RATE_LIMIT_VARIABLES, fallback: RateSpec): RateSpec | null => {
    if (value === undefined) return fallback;
    const source = sourceOf(key);
    return parseRateSpec(value, source === "default" ? flag : source);
  };
  return {
    workspace: read(flags.workspaceRate, "workspaceRate", "--workspace-rate", DEFAULT_RATE_LIMITS.workspace),
    token: read(flags.tokenRate, "tokenRate", "--token-rate", DEFAULT_RATE_LIMITS.token),
  };
}

/** One line for the serve banner: the limits in force. */
export function describeRateLimits(s: RateLimitSettings): string {
  return `rate limits: ${formatRateSpec(s.workspace)} per workspace, ${formatRateSpec(s.token)} per token, in cost units (a workspace's or token's own limit, set on the database, wins)`;
}
