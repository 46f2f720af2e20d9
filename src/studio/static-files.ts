/**
 * The page's files, served from the built folder (`dist/web`) only: no CDN, works
 * offline. Any path that is not a file gets `index.html`, so a deep link
 * (`/cases/<id>/evaluations/<rule>`) pasted into a browser opens that view.
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { errors } from "../contract/errors.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".map": "application/json",
};

/** Where `npm run build` puts the page (dist/web beside dist/studio). */
export function defaultAssetsDir(): string {
  return fileURLToPath(new URL("../web/", import.meta.url));
}

/** Serves the built page from `dir`; fails at once when the page was never built. */
export function createStaticFiles(dir: string) {
  const index = join(dir, "index.html");
  if (!existsSync(index)) throw errors.usage(`the studio's page is not built (${index} is missing): run npm run build`);
  const root = normalize(dir.endsWith(sep) ? dir : dir + sep);
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("method not allowed\n");
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? "/", "http://studio").pathname);
    } catch {
      res.writeHead(400, { "content-type": "text/plain" }).end("bad path\n");
      return;
    }
    const file = normalize(join(root, path));
    const isFile = file.startsWith(root) && existsSync(file) && statSync(file).isFile();
    if (!isFile && extname(path) !== "") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const chosen = isFile ? file : index;
    // Chunk names carry a content hash, so they never change; the rest is revalidated.
    const immutable = isFile && file.slice(root.length).startsWith("chunks" + sep);
    res.writeHead(200, {
      "content-type": TYPES[extname(chosen)] ?? "application/octet-stream",
      "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "content-security-policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
    });
    if (req.method === "HEAD") return void res.end();
    createReadStream(chosen).pipe(res);
  };
}
