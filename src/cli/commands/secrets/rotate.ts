import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs } from "../../core/shared-args.js";

/** `ddsctl secrets rotate`: re-encrypts every stored secret under a new key. */
export default defineCommand({
  command: "secrets rotate",
  description: "encrypt every stored secret (webhook signing secrets) under a new key; run on the database's machine",
  examples: [
    "ddsctl secrets rotate                       # new key in .dds/dds.db.key, the old one retired",
    "DDS_SECRET_KEY=<new>,<old> ddsctl --local /srv/dds.db secrets rotate --json",
  ],
  args: { ...reportArgs },
  writes: true,
  async handler(_args, ctx) {
    const target = ctx.target();
    if (target.mode !== "local") {
      throw errors.usage(`secrets are rotated on the server's database, not over HTTP; run this where the database is, with --database <url>, --local <db>, DDS_DATABASE_URL or DDS_DB (target was ${target.baseUrl})`);
    }
    // Lazy: engine code (the stores, their drivers) loads only for the command that uses it, never at start-up.
    const { openApp } = await import("../../../engine/app.js");
    // Lazy: as above.
    const { rotateSecrets } = await import("../../../engine/secrets/secret-rotation.js");
    const app = await openApp({ location: target.db, env: ctx.io.env });
    const report = await rotateSecrets(app.store, app.env).finally(() => app.close());
    const { out } = ctx;
    if (out.options.json) return out.json(report);
    out.fields([
      ["keys", report.source],
      ["keyId", report.keyId],
      ["retired", report.retiredKeyIds.join(", ") || "-"],
      ["resealed", String(report.resealed)],
    ]);
    if (report.source === "DDS_SECRET_KEY" && report.retiredKeyIds.length > 0) {
      out.info(`every secret now uses key ${report.keyId}: drop the other keys from DDS_SECRET_KEY`);
    }
  },
});
