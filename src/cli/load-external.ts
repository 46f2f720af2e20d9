/** What the bin provides to load modules kept out of the bundle (see scripts/bundle.mjs). */
type ExternalImport = (specifier: string) => Promise<unknown>;

const lent = () => (globalThis as { __ddsctlImport?: ExternalImport }).__ddsctlImport;

/**
 * Loads the HTTP server module. The bundled CLI leaves the server and the studio out (they
 * load from tsc's dist/, where their files find their assets next to themselves), and
 * bin/ddsctl lends an `import()` that works for code compiled from its cache; run from
 * source (tests), this is a plain import.
 */
export async function loadServer(): Promise<typeof import("../server/index.js")> {
  const external = lent();
  if (external) return (await external("./server/index.js")) as typeof import("../server/index.js");
  return import("../server/index.js");
}

/** Loads the studio's Node side, the same way as {@link loadServer}. */
export async function loadStudio(): Promise<typeof import("../studio/index.js")> {
  const external = lent();
  if (external) return (await external("./studio/index.js")) as typeof import("../studio/index.js");
  return import("../studio/index.js");
}
