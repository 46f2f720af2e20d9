/**
 * The output module lives in `output/output.ts`; this path stays only because `serve.ts`
 * (under change in another branch of issue 21) imports it here. Point that import at
 * `./output/output.js` and delete this file.
 */
export * from "./output/output.js";
