/** A view loaded on first use (its own chunk), so the first view does not wait for it. */
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ErrorNote, Loading } from "../components/bits.js";

/** Wraps `load` in a component that renders the loaded view with the same props. */
export function lazyView<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<ComponentType<P>> | undefined;
  return function LazyView(props: P) {
    const [view, setView] = useState<ComponentType<P> | undefined>(() => loaded);
    const [error, setError] = useState<Error>();
    useEffect(() => {
      if (view) return;
      (pending ??= load()).then(
        (v) => {
          loaded = v;
          setView(() => v);
        },
        (err: unknown) => setError(err instanceof Error ? err : new Error(String(err))),
      );
    }, []);
    if (error) return <ErrorNote error={error} />;
    if (!view) return <Loading />;
    const View = view;
    return <View {...props} />;
  };
}
