// A progress bar on stderr, shown only when stderr is a terminal and --quiet is off (otherwise every
// call is a no-op).
// It is the Io's status line: any message written with io.err() clears it first and redraws it
// after, so the bar never overwrites a message or gets cut by one. It shows the rate and an ETA.
import type { Io } from "./io.js";

export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

const silent: Progress = { update() {}, stop() {} };

/** Redraws at most this often (updates come once per row). */
const REDRAW_MS = 100;
/** The rate is measured over this much recent time. */
const RATE_WINDOW_MS = 10_000;

/** `line` cut to fit a terminal `columns` wide (the status line must not wrap). */
const fitLine = (line: string, columns: number) =>
  line.length > columns - 1 ? line.slice(0, Math.max(0, columns - 1)) : line;

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

/** "45s", "3m05s", "1h02m". */
export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** One line of the bar, fitted to `columns`. */
export function renderBar(
  label: string,
  done: number,
  total: number,
  ratePerSec: number | undefined,
  columns: number,
): string {
  const t = Math.max(total, 1);
  const frac = Math.min(1, Math.max(0, done / t));
  const rate = ratePerSec === undefined ? "" : ` | ${fmt(ratePerSec)}/s`;
  const eta =
    ratePerSec === undefined || ratePerSec <= 0
      ? done >= t
        ? ""
        : " | ETA ?"
      : ` | ETA ${formatEta((t - done) / ratePerSec)}`;
  const tail = ` ${Math.floor(frac * 100)}% | ${fmt(done)}/${fmt(t)}${rate}${eta}`;
  const room = columns - 1 - label.length - 3 - tail.length;
  const width = Math.max(10, Math.min(30, room));
  const full = Math.round(frac * width);
  return fitLine(`${label} [${"█".repeat(full)}${"░".repeat(width - full)}]${tail}`, columns);
}

export async function startProgress(io: Io, label: string, total: number): Promise<Progress> {
  return startStatus(io, total, (done, max, rate, columns) => renderBar(label, done, max, rate, columns));
}

/** "Reading stdin: 1.2 GB | 31.4 MB/s": a count of bytes with no known end, fitted to `columns`. */
function renderBytes(label: string, bytes: number, ratePerSec: number | undefined, columns: number): string {
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  return fitLine(
    `${label}: ${mb(bytes)}${ratePerSec === undefined ? "" : ` | ${mb(ratePerSec)}/s`}`,
    columns,
  );
}

/** The status line of an input read to its unknown end (a pipe): the bytes read so far and the rate. */
export function startByteCount(io: Io, label: string): Progress {
  return startStatus(io, 0, (done, _max, rate, columns) => renderBytes(label, done, rate, columns));
}

/** A status line of free text ("Exported 1,200 rows…"), with the bar's rules: silent off a terminal or with --quiet. */
export interface StatusText {
  show(text: string): void;
  stop(): void;
}

/** The status line for a count with no known end, told as a sentence; redrawn at most every REDRAW_MS. */
export function startStatusText(io: Io): StatusText {
  let text = "";
  let shown = 0;
  // Drawn first when there is something to say, then as the bar is: at most every REDRAW_MS.
  let status: Progress | undefined;
  return {
    show(line) {
      text = line;
      if (status) status.update(++shown);
      else status = startStatus(io, 0, (_done, _max, _rate, columns) => fitLine(text, columns));
    },
    stop: () => status?.stop(),
  };
}

type Render = (done: number, total: number, ratePerSec: number | undefined, columns: number) => string;

/** The status line, redrawn at most every REDRAW_MS with the rate over the last RATE_WINDOW_MS. */
function startStatus(io: Io, total: number, render: Render): Progress {
  if (!io.stderrIsTTY || io.quiet) return silent;
  const columns = () => (io.stderr as NodeJS.WriteStream).columns || 80;
  let max = total;
  let current = 0;
  let lastDraw = 0;
  let stopped = false;
  const samples: { t: number; done: number }[] = [{ t: Date.now(), done: 0 }];
  const draw = (now: number) => {
    lastDraw = now;
    samples.push({ t: now, done: current });
    while (samples.length > 2 && now - samples[0]!.t > RATE_WINDOW_MS) samples.shift();
    const first = samples[0]!;
    const secs = (now - first.t) / 1000;
    const rate = secs >= 0.5 ? (current - first.done) / secs : undefined;
    io.status(render(current, max, rate, columns()));
  };
  draw(Date.now());
  return {
    update(done, newTotal) {
      if (stopped) return;
      if (newTotal !== undefined) max = newTotal;
      current = done;
      const now = Date.now();
      if (now - lastDraw >= REDRAW_MS) draw(now);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      io.status(null);
    },
  };
}
