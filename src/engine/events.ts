import { channel } from "node:diagnostics_channel";

/**
 * Operational events of the engine that an operator wants in the log: a schema migrated on
 * open, a lost database connection and its return. Published on a diagnostics channel, so
 * code deep in a store reports them without being handed a logger, and publishing costs
 * nothing while no one listens (the CLI outside `serve`).
 */
export type EngineEvent =
  | { event: "migration_applied"; store: "sqlite" | "postgres"; location: string; from: number; to: number }
  | { event: "db_unreachable"; location: string; error: string }
  | { event: "db_reconnected"; location: string; downMs?: number };

/** The channel's name, for tools that subscribe with node:diagnostics_channel themselves. */
export const ENGINE_EVENTS_CHANNEL = "ddsctl:engine-events";

const events = channel(ENGINE_EVENTS_CHANNEL);

/** Publishes an event (a no-op while nobody subscribes). Locations must already be redacted. */
export function publishEngineEvent(event: EngineEvent): void {
  if (events.hasSubscribers) events.publish(event);
}

/** Calls `fn` for every engine event of this process; returns the unsubscribe function. */
export function onEngineEvent(fn: (event: EngineEvent) => void): () => void {
  const handler = (message: unknown) => fn(message as EngineEvent);
  events.subscribe(handler);
  return () => void events.unsubscribe(handler);
}
