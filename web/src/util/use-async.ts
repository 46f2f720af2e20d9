import { useCallback, useEffect, useRef, useState } from "preact/hooks";

/** The state of one asynchronous load. */
export interface AsyncState<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  /** Loads again, keeping the current data on screen meanwhile. */
  reload(): void;
}

/**
 * Runs `load` whenever `deps` change; a result that arrives after newer deps is dropped,
 * so a slow answer never overwrites a fresher one.
 */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const run = useRef(0);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const mine = ++run.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === run.current && setState({ data, loading: false }),
      (error: unknown) => mine === run.current && setState((s) => ({ data: s.data, error: error instanceof Error ? error : new Error(String(error)), loading: false })),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** Calls `fn` every `ms` while the page is visible (live freshness); stops on unmount. */
export function useInterval(fn: () => void, ms: number | null): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (ms === null) return;
    const id = setInterval(() => {
      if (document.visibilityState === "visible") saved.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms]);
}

/** `value`, once it has stopped changing for `ms` (edits are evaluated after a pause). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return settled;
}
