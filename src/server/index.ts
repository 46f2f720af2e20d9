export { createApp, type AppOptions } from "./app.js";
export { openApiDocument } from "./openapi.js";
export { createServer, type RunningServer, type ServerOptions } from "./server.js";
export { createServerLogger, LOG_FORMATS, type LogFormat, type ServerLogger } from "./server-log.js";
export type { WorkerOptions } from "../engine/index.js";
