// A real terminal for end-to-end tests: a detached tmux session on a private socket running one
// shell command, its screen read with capture-pane. Tests skip (saying so) when tmux is absent.
import { execFileSync, spawnSync } from "node:child_process";

export const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

/** Appended to a test's name when tmux is missing, so the skip states its reason. */
export const tmuxSkipNote = hasTmux ? "" : " (SKIPPED: tmux is not installed)";

/** Quotes a value for the shell command tmux runs. */
export const shq = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

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
    async waitFor(re, what, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const s = screen();
        if (re.test(s)) return s;
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; screen:\n${s}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
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
