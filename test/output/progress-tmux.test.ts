// Every command that shows progress draws it on the Io's status line (src/io/progress.ts): at a
// terminal it is drawn while the run goes and cleared at the end; with --quiet nothing of it is
// written at all. A real terminal (tmux) whose every byte is recorded, since a status line drawn and
// then cleared is not on the final screen.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../helpers/cli.js";
import { emitStatusChanges, useFeedCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { hasTmux, recordInTerminal, shq, tmuxSkipNote } from "../helpers/tmux.js";

const box = useSandbox({ seed: "demo" });
useFeedCampaign(box, { claims: 130, redemptions: 120, seed: 9 });
beforeAll(() => emitStatusChanges(box, 30));

/** Each command that shows progress, with its output in a fresh directory, and its status line. */
const COMMANDS: { name: string; args: (dir: string) => string[]; line: RegExp }[] = [
  {
    name: "redemptions export --out (CSV)",
    args: (dir) => ["redemptions", "export", "--out", join(dir, "r.csv"), "--page-size", "10"],
    line: /Exported \d+ rows…/,
  },
  {
    name: "redemptions export --out (xlsx)",
    args: (dir) => ["redemptions", "export", "--out", join(dir, "r.xlsx"), "--page-size", "10"],
    line: /Exported \d+ rows…/,
  },
  {
    name: "events sync",
    args: (dir) => ["events", "sync", "--out", join(dir, "events.ndjson"), "--page-size", "5"],
    line: /Synced \d+ new events…/,
  },
  {
    name: "sync --to sqlite:",
    args: (dir) => ["sync", "--to", `sqlite:${join(dir, "copy.db")}`, "--page-size", "10"],
    line: /Syncing… \w+: \d+ read/,
  },
];

function commandLine(args: string[], dir: string): string {
  const env = box.env({ NO_COLOR: "1" }, { configDir: join(dir, "config") });
  const vars = ["PARTNER_BASE_URL", "PARTNER_API_KEY", "PARTNER_CLI_CONFIG_DIR", "NO_COLOR"];
  return [
    "env",
    ...vars.map((k) => `${k}=${shq(env[k]!)}`),
    shq(process.execPath),
    shq(BIN),
    ...args.map(shq),
  ].join(" ");
}

describe("progress in a real terminal (tmux)", () => {
  for (const c of COMMANDS) {
    it.skipIf(!hasTmux)(
      `${c.name}: the status line is drawn at a terminal and cleared at the end${tmuxSkipNote}`,
      { timeout: 120_000 },
      async () => {
        const dir = tempDir("pcli-progress-");
        const r = await recordInTerminal(commandLine(c.args(dir), dir), "progress");
        expect(r.exitCode, r.bytes).toBe(0);
        expect(r.bytes).toMatch(new RegExp(`\\r\\u001b\\[2K${c.line.source}`));
        expect(r.screen).not.toMatch(c.line);
      },
    );

    it.skipIf(!hasTmux)(
      `${c.name} --quiet: no status line at all${tmuxSkipNote}`,
      { timeout: 120_000 },
      async () => {
        const dir = tempDir("pcli-progress-");
        const r = await recordInTerminal(commandLine([...c.args(dir), "--quiet"], dir), "quiet");
        expect(r.exitCode, r.bytes).toBe(0);
        expect(r.bytes).not.toMatch(c.line);
        expect(r.bytes).not.toContain("\u001b[2K");
      },
    );
  }
});
