import type { Hono } from "hono";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { ServerEnv } from "./types.js";

/** The Swagger UI files `/docs` serves, from the swagger-ui-dist package (no CDN). */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
};

/** Starts Swagger UI on this server's document; no validator badge (it would call out to the internet). */
const INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/v1/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
};
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Decisioning Data Service API</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

/** Everything comes from this server: scripts, styles and the document itself. */
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

/** The folder of the installed swagger-ui-dist package. */
function assetDir(): string {
  return dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
}

/**
 * `GET /docs`: human-readable API docs (Swagger UI over `/v1/openapi.json`), served from
 * the swagger-ui-dist package installed with ddsctl, so they work offline and load
 * nothing from elsewhere. No token: like the document, the docs describe, they do not act.
 */
export function serveDocs(app: Hono<ServerEnv>): void {
  const cache = new Map<string, Buffer>();
  const headers = (type: string) => ({ "Content-Type": type, "Content-Security-Policy": CSP, "Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff" });
  app.get("/docs", (c) => c.body(PAGE, 200, headers("text/html; charset=utf-8")));
  app.get("/docs/init.js", (c) => c.body(INIT, 200, headers("text/javascript; charset=utf-8")));
  app.get("/docs/:asset", async (c, next) => {
    const asset = c.req.param("asset");
    const type = Object.hasOwn(ASSETS, asset) ? ASSETS[asset] : undefined;
    if (!type) return next();
    let body = cache.get(asset);
    if (!body) cache.set(asset, (body = readFileSync(join(assetDir(), asset))));
    return c.body(new Uint8Array(body), 200, headers(type));
  });
}

/** The paths `/docs` answers (for 405s on them). */
export const DOCS_PATHS = [/^\/docs$/, /^\/docs\/(init\.js|swagger-ui\.css|swagger-ui-bundle\.js|favicon-32x32\.png|favicon-16x16\.png)$/];
