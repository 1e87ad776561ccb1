// A million-redemption simulate with its events: `POST /_sandbox/simulate` of BENCH_SIMULATE_ROWS
// claims and as many redemptions (1,000,000; about two million events: a code.issued per claim, a
// redemption.recorded per redemption) on a served sandbox (`partner-cli sandbox start --seed empty`),
// in memory and with --data-dir (a file, WAL, synchronous=FULL, like the embedded sandbox), against
// the same call with `events: false` (the rows alone), interleaved in one run. The server's RSS is
// sampled every 250 ms from /proc/<pid>/status (VmRSS): flat memory keeps the peak near the figure
// before the call. The events written are counted through GET /events (the last page's cursor walk
// is not timed).
//
// Used by bench/run.mjs (BENCH_ONLY=simulate); `node bench/simulate-1m.mjs` runs it alone (after
// `npm run build`). Knobs: BENCH_SIMULATE_ROWS (1000000; 0 skips), BENCH_SIMULATE_MODES (memory,file).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fillRedemptions, log, round, servedSandbox, table } from "./lib.mjs";

/** Samples a process's VmRSS (MB) every `everyMs`. */
export function rssSampler(pid, everyMs = 1000) {
  const samples = [];
  const read = () => {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) samples.push(round(Number(m[1]) / 1024));
    } catch {
      // gone
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      read();
      return {
        first: samples[0] ?? null,
        last: samples.at(-1) ?? null,
        max: samples.length ? Math.max(...samples) : null,
        samples: samples.length,
      };
    },
  };
}

async function oneRun(bin, rows, mode, events, dir) {
  const args = ["--seed", "empty"];
  if (mode === "file") args.push("--data-dir", mkdtempSync(join(dir, "sim-")));
  const sb = await servedSandbox(bin, args, { ...process.env, NO_COLOR: "1" });
  try {
    const rss = rssSampler(sb.pid, 250);
    const { generateMs, made } = await fillRedemptions(sb, rows, `sim-${mode}`, { events });
    const mem = rss.stop();
    return {
      mode,
      events,
      seconds: round(generateMs / 1000, 2),
      eventsWritten: made.events,
      usPerEvent: made.events ? round((generateMs * 1000) / made.events, 1) : null,
      rssMb: mem,
    };
  } finally {
    await sb.stop();
  }
}

export async function simulateBench({ bin, tmp, rows = 1_000_000, modes = ["memory", "file"] }) {
  const runs = [];
  for (const mode of modes)
    for (const events of [true, false]) {
      log(`  simulate ${rows} claims + redemptions, ${mode}, events ${events ? "on" : "off"}`);
      runs.push(await oneRun(bin, rows, mode, events, tmp));
    }
  const rowsOut = runs.map((r) => [
    r.mode === "file" ? "--data-dir (file)" : "in memory",
    r.events ? "on (default)" : "off (events: false)",
    r.seconds,
    r.eventsWritten.toLocaleString("en-US"),
    r.usPerEvent ?? "-",
    r.rssMb.first,
    r.rssMb.last,
    r.rssMb.max,
  ]);
  const ratios = modes.map((mode) => {
    const on = runs.find((r) => r.mode === mode && r.events);
    const off = runs.find((r) => r.mode === mode && !r.events);
    return `${mode}: ${round(on.seconds / off.seconds, 1)}x the time without events`;
  });
  const text = [
    `Simulate: ${rows.toLocaleString("en-US")} claims and ${rows.toLocaleString("en-US")} redemptions in one POST /_sandbox/simulate (partner-cli sandbox start --seed empty); server RSS sampled every 250 ms`,
    table(rowsOut, [
      "store",
      "events",
      "seconds",
      "events written",
      "µs/event",
      "RSS first",
      "RSS last",
      "RSS max",
    ]),
    `With events: ${ratios.join("; ")}.`,
  ].join("\n");
  return { text, results: { rows, runs } };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const tmp = mkdtempSync(join(tmpdir(), "partner-cli-bench-sim-"));
  try {
    const rows = Number(process.env.BENCH_SIMULATE_ROWS ?? 1_000_000);
    const modes = (process.env.BENCH_SIMULATE_MODES ?? "memory,file").split(",").filter(Boolean);
    const r = await simulateBench({ bin: join(root, "bin", "partner-cli.js"), tmp, rows, modes });
    process.stdout.write(`${r.text}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
