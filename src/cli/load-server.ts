/** What the bin provides to load modules kept out of the bundle (see scripts/bundle.mjs). */
type ExternalImport = (specifier: string) => Promise<unknown>;

/**
 * Loads the HTTP server module. The bundled CLI leaves the server out (it is loaded from
 * tsc's dist/server/, where its files find their assets next to themselves), and bin/ddsctl
 * lends an `import()` that works for code compiled from its cache; run from source (tests),
 * this is a plain import.
 */
export async function loadServer(): Promise<typeof import("../server/index.js")> {
  const external = (globalThis as { __ddsctlImport?: ExternalImport }).__ddsctlImport;
  if (external) return (await external("./server/index.js")) as typeof import("../server/index.js");
  return import("../server/index.js");
}
