// A real terminal for end-to-end tests: a detached tmux session on a private socket running one
// shell command, its screen read with capture-pane. Tests skip (saying so) when tmux is absent.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  /** Named keys, as tmux spells them ("C-c", "BSpace"). */
  keys(...names: string[]): void;
  kill(): void;
  /** From now on, every byte the pane's program writes is appended to `path` (tmux pipe-pane). */
  record(path: string): void;
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
    keys: (...names) => void tmux("send-keys", "-t", name, ...names),
    record: (path) => void tmux("pipe-pane", "-o", "-t", name, `cat >> ${shq(path)}`),
    kill() {
      try {
        tmux("kill-server");
      } catch {
        // already gone
      }
    },
  };
}

export interface Recorded {
  /** Every byte the command wrote to the terminal, escapes and carriage returns included. */
  bytes: string;
  /** The screen once it ended. */
  screen: string;
  exitCode: number;
}

/**
 * Runs `command` in a terminal while recording every byte it writes there: what a screen capture
 * cannot show (a status line drawn, then cleared) is in `bytes`. The command starts once the recording
 * has (it waits for a key), and the result is read once its exit code is in the recording.
 */
export async function recordInTerminal(command: string, name = "rec"): Promise<Recorded> {
  const log = join(mkdtempSync(join(tmpdir(), "pcli-rec-")), "pane.log");
  const t = tmuxSession(`read _go; ${command}; echo EXIT=$?; sleep 600`, name);
  try {
    t.record(log);
    t.enter();
    const screen = await t.waitFor(/EXIT=\d+/, `the end of ${command}`, 120_000);
    const bytes = await until(
      () => {
        const b = existsSync(log) ? readFileSync(log, "utf8") : "";
        return /EXIT=\d+/.test(b) && b;
      },
      30_000,
      `the exit code of ${command} in its recording`,
    );
    return { bytes, screen, exitCode: Number(/EXIT=(\d+)/.exec(bytes)![1]) };
  } finally {
    t.kill();
  }
}
