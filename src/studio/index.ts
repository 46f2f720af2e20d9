export { nextStopSignal, studioPort } from "./lifecycle.js";
export { openBrowser } from "./open-browser.js";
export { startStudio, type RunningStudio, type StudioOptions, type StudioTarget } from "./studio-server.js";
