// A real terminal for end-to-end tests: a detached tmux session on a private socket running one
// shell command, its screen read with capture-pane. Tests skip (saying so) when tmux is absent.
import { execFileSync, spawnSync } from "node:child_process";
import { until } from "./wait.js";

export const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

/** Appended to a test's name when tmux is missing, so the skip states its reason. */
export const tmuxSkipNote = hasTmux ? "" : " (SKIPPED: tmux is not installed)";

/** Quotes a value for the shell command tmux runs. */
export const shq = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** Waits until `screen()` matches `re` and returns it; on a timeout the error shows the last screen. */
export async function screenShows(screen: () => string, re: RegExp, what: string, timeoutMs = 30_000) {
  let last = "";
  try {
    const shows = () => {
      last = screen();
      return re.test(last) ? last : undefined;
    };
    return await until(shows, timeoutMs, what);
  } catch {
    throw new Error(`timed out waiting for ${what}; screen:\n${last}`);
  }
}

export interface TmuxSession {
  screen(): string;
  waitFor(re: RegExp, what: string, timeoutMs?: number): Promise<string>;
  type(text: string): void;
  enter(): void;
  kill(): void;
}

/** Starts `command` (a shell command line) in a new terminal, 220x50 unless `size` says. Call kill() when done. */
export function tmuxSession(command: string, name = "t", size = { width: 220, height: 50 }): TmuxSession {
  const socket = `pcli-${name}-${process.pid}-${Date.now()}`;
  const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  tmux("new-session", "-d", "-s", name, "-x", String(size.width), "-y", String(size.height), command);
  const screen = () => tmux("capture-pane", "-p", "-J", "-t", name);
  return {
    screen,
    waitFor: (re, what, timeoutMs = 30_000) => screenShows(screen, re, what, timeoutMs),
    type: (text) => void tmux("send-keys", "-t", name, "-l", text),
    enter: () => void tmux("send-keys", "-t", name, "Enter"),
    kill() {
      try {
        tmux("kill-server");
      } catch {
        // already gone
      }
    },
  };
}
