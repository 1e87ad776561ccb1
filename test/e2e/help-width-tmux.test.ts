// In a real terminal 80 and 120 columns wide (tmux), no line of any `--help` (or help topic) is
// wider than the pane: the built CLI reads the width from the terminal (COLUMNS unset), and the
// wrapped lines tmux would fold are joined back by capture-pane -J, so a line that is too long
// shows as one.
import { describe, expect, test } from "vitest";
import { HELP_TOPICS } from "../../src/cli/help-topics.js";
import { allCommands, program } from "../cli/tree.js";
import { BIN } from "../helpers/cli.js";
import { hasTmux, shq, tmuxSession, tmuxSkipNote } from "../helpers/tmux.js";

const lines: string[][] = [[], ...allCommands(program()).map((c) => [...c.path, "--help"])];
lines.push(...HELP_TOPICS.map((t) => ["help", t.name]));
const BATCH = 24;

/** Runs the help command lines in a terminal `width` columns wide; answers what each printed. */
async function helpScreens(width: number): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (let start = 0; start < lines.length; start += BATCH) {
    const batch = lines.slice(start, start + BATCH);
    const steps = batch.map(
      (argv) => `echo ${shq(`@@ ${argv.join(" ")}`)}; node ${shq(BIN)} ${argv.map(shq).join(" ")}`,
    );
    const script = `unset COLUMNS LINES; ${steps.join("; ")}; echo @@DONE; sleep 60`;
    const t = tmuxSession(`sh -c ${shq(script)}`, `help${width}`, { width, height: 2500 });
    try {
      const screen = await t.waitFor(/^@@DONE$/m, `help at ${width} columns`, 120_000);
      let current: string[] = [];
      for (const line of screen.split("\n")) {
        if (line === "@@DONE") break;
        if (line.startsWith("@@ ")) {
          current = [];
          out.set(line.slice(3), current);
        } else current.push(line);
      }
    } finally {
      t.kill();
    }
  }
  return out;
}

describe("help in a real terminal", () => {
  test.runIf(hasTmux).each([80, 120])(
    `at %i columns no line of any --help is wider than the pane${tmuxSkipNote}`,
    async (width) => {
      const screens = await helpScreens(width);
      expect(screens.size).toBe(lines.length);
      const over: string[] = [];
      let widest = 0;
      for (const [cmd, text] of screens) {
        expect(text.join("\n"), cmd).toMatch(/Usage: partner-cli|: /);
        for (const l of text) {
          widest = Math.max(widest, l.length);
          if (l.length > width) over.push(`${cmd}: ${l.length}: ${l}`);
        }
      }
      expect(over).toEqual([]);
      // The terminal's width is used, not a fixed 80: at 120 some lines are longer than 80.
      if (width > 80) expect(widest).toBeGreaterThan(80);
    },
    300_000,
  );
});
