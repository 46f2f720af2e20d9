/** Small shared pieces: values, outcome and freshness badges, errors, loading. */
import type { ComponentChildren } from "preact";
import { formatTraceValue } from "../../../src/portable/workbench/trace/trace-value.js";

/** A JSON value as the terminal trace prints it (compact, long arrays cut). */
export function Value(props: { value: unknown; max?: number }) {
  return <code class="value">{formatTraceValue(props.value, { maxItems: props.max ?? 5 })}</code>;
}

/** PASS / FAIL (or ? when unknown). */
export function Outcome(props: { outcome: boolean | null | undefined }) {
  const { outcome } = props;
  if (outcome === true) return <span class="badge pass">PASS</span>;
  if (outcome === false) return <span class="badge fail">FAIL</span>;
  return <span class="badge">?</span>;
}

/** resolved / stale / computing, and lifecycle states. */
export function State(props: { value: string }) {
  return <span class={`badge state-${props.value}`}>{props.value}</span>;
}

/** A failure shown where the data would be. */
export function ErrorNote(props: { error: Error | undefined }) {
  if (!props.error) return null;
  return (
    <p class="error" role="alert">
      {props.error.message}
    </p>
  );
}

/** A placeholder while something loads. */
export function Loading(props: { what?: string }) {
  return <p class="muted" aria-busy="true">Loading{props.what ? ` ${props.what}` : ""}…</p>;
}

/** A titled panel. */
export function Panel(props: { title: ComponentChildren; children: ComponentChildren; id?: string; actions?: ComponentChildren }) {
  return (
    <section class="panel" id={props.id} aria-label={typeof props.title === "string" ? props.title : undefined}>
      <header class="panel-head">
        <h2>{props.title}</h2>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

/** `2026-03-09T10:00:00.000Z` as a short local time. */
export function Time(props: { iso: string | null | undefined }) {
  if (!props.iso) return <span class="muted">—</span>;
  const d = new Date(props.iso);
  return <time dateTime={props.iso} title={props.iso}>{d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}</time>;
}
