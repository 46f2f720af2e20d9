export * from "./errors.js";
export * from "./list-query.js";
export * from "./service.js";
export * from "./schemas/index.js";
export * from "./parse.js";
