/** `--open`: hands the URL to the desktop's browser (`$BROWSER` first, as many tools do). */
import { spawn } from "node:child_process";

function command(url: string): [string, string[]] {
  const browser = process.env.BROWSER;
  if (browser) return [browser, [url]];
  if (process.platform === "darwin") return ["open", [url]];
  if (process.platform === "win32") return ["cmd", ["/c", "start", '""', url]];
  return ["xdg-open", [url]];
}

/** Starts the browser without waiting for it; resolves false when it could not be started. */
export function openBrowser(url: string): Promise<boolean> {
  const [cmd, args] = command(url);
  return new Promise((resolve) => {
    try {
      const child = spawn(cmd, args, { detached: true, stdio: "ignore" });
      child.once("error", () => resolve(false));
      child.once("spawn", () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
