// The progress bar is the Io's status line: other stderr lines are written above it, never over it;
// it shows the rate and an ETA. Unit tests on captured streams, and a real terminal (tmux).
import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createIo } from "../../src/io/io.js";
import { formatEta, renderBar, startProgress } from "../../src/io/progress.js";
import { BIN } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { screenShows } from "../helpers/tmux.js";
import { useSandbox } from "../helpers/harness.js";

function ttyIo(tty = true) {
  const stderr = new PassThrough();
  let text = "";
  stderr.on("data", (c) => {
    text += c;
  });
  Object.assign(stderr, { isTTY: tty, columns: 100 });
  const io = createIo(
    {
      stdout: new PassThrough(),
      stderr,
      stdin: new PassThrough(),
      stdoutIsTTY: tty,
      stderrIsTTY: tty,
      stdinIsTTY: tty,
    },
    { json: false, noColor: true, env: {} },
  );
  return { io, text: () => text };
}

const CLEAR = "\r\u001b[2K";

describe("the status line", () => {
  it("err() clears the bar, writes the line, and draws the bar again; stop() clears it", async () => {
    const { io, text } = ttyIo();
    const bar = await startProgress(io, "Importing", 10);
    const drawn = text();
    expect(drawn.startsWith(`${CLEAR}Importing [`)).toBe(true);
    const barLine = drawn.slice(CLEAR.length);
    io.err("line 3 (x-1): email: must be a valid email address");
    expect(text().slice(drawn.length)).toBe(
      `${CLEAR}line 3 (x-1): email: must be a valid email address\n${barLine}`,
    );
    bar.stop();
    expect(text().endsWith(CLEAR)).toBe(true);
    const before = text().length;
    io.err("Imported.");
    expect(text().slice(before)).toBe("Imported.\n");
  });

  it("nothing at all when stderr is not a terminal", async () => {
    const { io, text } = ttyIo(false);
    const bar = await startProgress(io, "Importing", 10);
    bar.update(5);
    io.err("a line");
    bar.stop();
    expect(text()).toBe("a line\n");
  });

  it("shows percent, counts, rate and ETA, fitted to the width", () => {
    expect(renderBar("Importing", 250_000, 1_000_000, 50_000, 120)).toBe(
      `Importing [${"█".repeat(8)}${"░".repeat(22)}] 25% | 250,000/1,000,000 | 50,000/s | ETA 15s`,
    );
    expect(renderBar("Importing", 10, 100, undefined, 80)).toMatch(/ 10% \| 10\/100 \| ETA \?$/);
    expect(renderBar("Importing", 5, 10, 1, 30)).toHaveLength(29);
    expect(formatEta(59.6)).toBe("1m00s");
    expect(formatEta(3725)).toBe("1h02m");
  });
});

const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
const tmuxNote = hasTmux ? "" : " (SKIPPED: tmux is not installed)";

describe("roster import in a real terminal (tmux)", () => {
  const box = useSandbox({ seed: "empty" });

  it.skipIf(!hasTmux)(
    `retry notes and rejected rows are whole lines; the bar shows rate and ETA and is gone at the end${tmuxNote}`,
    { timeout: 120_000 },
    async () => {
      const dir = tempDir("pcli-tmux-");
      const file = join(dir, "r.csv");
      const rows = Array.from({ length: 1000 }, (_, i) =>
        i % 250 === 7 ? `t-${i},Name ${i},bad-email` : `t-${i},Name ${i},t${i}@example.com`,
      );
      writeFileSync(file, `externalId,name,email\n${rows.join("\n")}\n`);
      // Slow answers so the bar is drawn; 429s so retry notes are written while it is on screen.
      await box.http("POST", "/faults", {
        control: true,
        body: {
          latencyMs: 250,
          next: ["429", "429", "429"],
          retryAfterSeconds: 0,
          pathPrefix: "/creators/batch",
        },
      });
      const socket = `pcli-e-${process.pid}`;
      const session = "import";
      const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
      const screen = () => tmux("capture-pane", "-p", "-J", "-t", session);
      const waitFor = (re: RegExp, what: string) => screenShows(screen, re, what, 60_000);
      const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
      const command = [
        "env",
        `PARTNER_BASE_URL=${q(box.url)}`,
        `PARTNER_API_KEY=${q(box.writeKey)}`,
        `PARTNER_CLI_CONFIG_DIR=${q(join(dir, "config"))}`,
        "PARTNER_RETRY_BASE_MS=20",
        "NO_COLOR=1",
        q(process.execPath),
        q(BIN),
        "roster import",
        q(file),
        "--batch-size 100",
        "; echo EXIT=$?; sleep 60",
      ].join(" ");
      tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", command);
      try {
        const mid = await waitFor(
          /Importing \[[█░]+\] \d+% \| [\d,]+\/[\d,]+ \| [\d,]+\/s \| ETA \S+/,
          "the bar",
        );
        expect(mid).toMatch(/ETA \d+(m\d\ds|s)/);
        const end = await waitFor(/EXIT=\d+/, "the end");
        const lines = end.split("\n").filter((l) => l.trim() !== "");
        expect(lines.at(-1)).toBe("EXIT=3");
        // Every line is one whole message: a retry note, a rejected row, the summary or the error.
        const kinds = [
          /^\(HTTP 429 rate_limited; retrying in [\d.]+s\)$/,
          /^line \d+ \(t-\d+\): email: must be a valid email address$/,
          /^Imported .*r\.csv: 1,000 rows in 10 batches: 996 added, 0 updated, 0 unchanged, 4 rejected\.$/,
          /^Error: 4 of 1,000 rows were rejected\.$/,
          /^Fix the lines listed above and import again/,
          /^EXIT=3$/,
        ];
        for (const l of lines)
          expect(
            kinds.some((k) => k.test(l)),
            `a garbled line: ${JSON.stringify(l)}`,
          ).toBe(true);
        expect(lines.filter((l) => l.startsWith("(HTTP 429")).length).toBe(3);
        expect(lines.filter((l) => l.startsWith("line ")).map((l) => l.split(" ")[1])).toEqual([
          "9",
          "259",
          "509",
          "759",
        ]);
        expect(end).not.toMatch(/Importing \[/);
      } finally {
        try {
          tmux("kill-server");
        } catch {
          // already gone
        }
        await box.http("POST", "/faults", {
          control: true,
          body: { latencyMs: 0, next: [], pathPrefix: null },
        });
      }
    },
  );
});
