// The export bench alone: `partner-cli redemptions export --out FILE` (CSV, a fresh config dir) of
// BENCH_EXPORT_ROWS redemptions (1,000,000) generated in one served sandbox, against a raw undici loop
// that reads the same feed pages (limit=1000) and writes each item as a JSON line. Rounds alternate
// the order of the processes (median of BENCH_EXPORT_ROUNDS, 3); then the same with
// BENCH_EXPORT_LATENCY_MS (50) of latency per request (BENCH_EXPORT_LATENCY_ROUNDS, 1), against the
// latency floor too (pages x latency: each feed cursor comes with the page before, so no client can
// take less). The CLI's RSS is sampled against its output's size: flat memory keeps the peak by the
// first fifth of the rows close to the peak of the whole run.
//
// BENCH_CLI_BEFORE=path/to/bin/partner-cli.js adds another build's export to every round (the
// before of a change, measured in the same run). Run after `npm run build`: `node bench/export-1m.mjs`.
// Prints a table on stdout; with BENCH_EXPORT_JSON=FILE also writes the samples there.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { api, fillRedemptions, log, measured, median, round, servedSandbox, table } from "./lib.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "partner-cli.js");
const BEFORE = process.env.BENCH_CLI_BEFORE;
const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_EXPORT_ROUNDS ?? 3));
const LATENCY_MS = Number(process.env.BENCH_EXPORT_LATENCY_MS ?? 50);
const LATENCY_ROUNDS = Math.max(1, Number(process.env.BENCH_EXPORT_LATENCY_ROUNDS ?? 1));

/** A served sandbox holding `rows` redemptions on one campaign linked to 50 creators. */
export async function sandboxWithRedemptions(bin, rows) {
  const sb = await servedSandbox(bin, ["--seed", "empty"], { ...process.env, NO_COLOR: "1" });
  await fillRedemptions(sb, rows, "export");
  return sb;
}

/**
 * A feed-reading script for the baselines: `get(after)` (one feed page's text, undici on keep-alive)
 * and `take(text)` (parse the page, write its items as JSON lines, count them) around `loop`.
 */
function feedLoopScript(dir, name, loop) {
  const file = join(dir, name);
  writeFileSync(
    file,
    `import { openSync, writeSync, fsyncSync, closeSync } from "node:fs";
import { createRequire } from "node:module";
const { Agent } = createRequire(${JSON.stringify(join(ROOT, "package.json"))})("undici");
const [out, baseUrl, key] = process.argv.slice(2);
const agent = new Agent({ keepAliveTimeout: 10_000 });
const fd = openSync(out, "w");
let rows = 0;
let pages = 0;
const get = (after) => {
  const url = new URL("/api/partner/v1/redemptions", baseUrl);
  url.searchParams.set("limit", "1000");
  if (after) url.searchParams.set("after", after);
  return agent
    .request({ origin: url.origin, path: url.pathname + url.search, method: "GET", headers: { authorization: "Bearer " + key } })
    .then((res) => res.body.text());
};
const take = (text) => {
  const page = JSON.parse(text);
  let chunk = "";
  for (const item of page.items) chunk += JSON.stringify(item) + "\\n";
  writeSync(fd, chunk);
  rows += page.items.length;
  pages++;
  return page;
};
${loop}
fsyncSync(fd);
closeSync(fd);
await agent.close();
process.stdout.write(JSON.stringify({ rows, pages }) + "\\n");
`,
  );
  return file;
}

/** The raw loop: read every feed page with undici and write each item as a JSON line. */
export function rawExportScript(dir) {
  return feedLoopScript(
    dir,
    "raw-export.mjs",
    `let after = null;
for (;;) {
  const page = take(await get(after));
  if (page.nextCursor === null) break;
  after = page.nextCursor;
}`,
  );
}

/**
 * The chain loop, for the passes with latency: the least any client can do against this feed. It takes
 * each page's next cursor off the answer's text and sends the next request at once (yielding once, so
 * undici writes it), then parses the page and writes its items as JSON lines while that request waits.
 * What it takes over the latency floor is the sandbox's own time per page and the transfer.
 */
export function chainLoopScript(dir) {
  return feedLoopScript(
    dir,
    "chain-export.mjs",
    `let next = get(null);
for (;;) {
  const text = await next;
  const m = /"nextCursor":(null|"([A-Za-z0-9_-]*)")\\s*}\\s*$/.exec(text);
  if (m && m[2]) {
    next = get(m[2]);
    await new Promise((r) => setImmediate(r));
  }
  const page = take(text);
  if (page.nextCursor !== (m ? (m[2] ?? null) : undefined)) throw new Error("cursor read off the text differs");
  if (page.nextCursor === null) break;
}`,
  );
}

/** Samples a process tree's RSS (the node under /usr/bin/time) against the size of `file`. */
function rssSampler(file) {
  const samples = [];
  const nodePids = () => {
    const out = [];
    for (const pid of readFileSync(`/proc/self/task/${process.pid}/children`, "utf8").trim().split(/\s+/)) {
      if (!pid) continue;
      try {
        const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
        out.push(...(kids ? kids.split(/\s+/) : [pid]));
      } catch {
        // gone
      }
    }
    return out;
  };
  const timer = setInterval(() => {
    try {
      const size = existsSync(file) ? statSync(file).size : 0;
      for (const pid of nodePids()) {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        if (!cmd.includes("redemptions")) continue;
        const status = readFileSync(`/proc/${pid}/status`, "utf8");
        const m = /VmRSS:\s+(\d+)/.exec(status);
        if (m) samples.push([size, round(Number(m[1]) / 1024)]);
      }
    } catch {
      // gone
    }
  }, 100);
  return {
    stop(bytes) {
      clearInterval(timer);
      const upTo = (share) => Math.max(0, ...samples.filter(([s]) => s <= bytes * share).map(([, mb]) => mb));
      return { firstFifth: upTo(0.2), whole: upTo(1) };
    },
  };
}

let runNo = 0;
async function exportOnce(kind, sb, scripts, dir) {
  const n = runNo++;
  const script = scripts[kind];
  const out = join(dir, `export-${kind}-${n}.${script ? "ndjson" : "csv"}`);
  const cfg = join(dir, `export-config-${n}`);
  const env = {
    ...process.env,
    PARTNER_CLI_CONFIG_DIR: cfg,
    PARTNER_BASE_URL: sb.baseUrl,
    PARTNER_API_KEY: sb.writeKey,
    NO_COLOR: "1",
  };
  const bin = kind === "before" ? BEFORE : BIN;
  const args = script
    ? [script, out, sb.baseUrl, sb.writeKey]
    : [bin, "redemptions", "export", "--out", out, "--json"];
  const sampler = script ? undefined : rssSampler(out);
  const r = await measured(args, env);
  if (r.code !== 0) throw new Error(`${kind} export exited ${r.code}: ${r.stderr.slice(0, 500)}`);
  const parsed = JSON.parse(r.stdout);
  const summary = script ? parsed : parsed.summary;
  if (summary.rows !== ROWS) throw new Error(`${kind} export wrote ${summary.rows} of ${ROWS} rows`);
  const bytes = statSync(out).size;
  rmSync(out, { force: true });
  rmSync(cfg, { recursive: true, force: true });
  return {
    ms: round(r.ms),
    rowsPerSec: Math.round(ROWS / (r.ms / 1000)),
    cpuSec: r.cpuSec,
    peakRssMb: r.peakRssMb,
    pages: summary.pages,
    sampledRssMb: sampler?.stop(bytes),
  };
}

/** All passes: per pass and kind, the runs and the median run. */
export async function exportBench({ bin = BIN, dir } = {}) {
  const kinds = BEFORE ? ["cli", "raw", "before"] : ["cli", "raw"];
  const sb = await sandboxWithRedemptions(bin, ROWS);
  try {
    const scripts = { raw: rawExportScript(dir), chain: chainLoopScript(dir) };
    const passes = [{ name: "no added latency", latencyMs: 0, rounds: ROUNDS }];
    if (LATENCY_MS > 0)
      passes.push({ name: `${LATENCY_MS} ms per request`, latencyMs: LATENCY_MS, rounds: LATENCY_ROUNDS });
    const results = [];
    let turn = 0;
    for (const pass of passes) {
      await api(sb, "POST", "/faults", { latencyMs: pass.latencyMs }, "/_sandbox");
      const passKinds = pass.latencyMs > 0 ? [...kinds, "chain"] : kinds;
      const runs = Object.fromEntries(passKinds.map((k) => [k, []]));
      for (let i = 0; i < pass.rounds; i++) {
        // Rotate the order, so drift in the machine's load favours no side.
        const order = passKinds.map((_, j) => passKinds[(j + turn) % passKinds.length]);
        turn++;
        for (const kind of order) {
          log(`  export (${pass.name}), round ${i + 1} of ${pass.rounds}: ${kind}`);
          runs[kind].push(await exportOnce(kind, sb, scripts, dir));
        }
      }
      const med = (k) => {
        const ms = median(runs[k].map((r) => r.ms));
        return {
          ...runs[k].reduce((a, b) => (Math.abs(b.ms - ms) < Math.abs(a.ms - ms) ? b : a)),
          medianMs: ms,
        };
      };
      const m = Object.fromEntries(passKinds.map((k) => [k, med(k)]));
      const floorMs = pass.latencyMs > 0 ? m.raw.pages * pass.latencyMs : null;
      results.push({
        pass: pass.name,
        latencyMs: pass.latencyMs,
        rounds: pass.rounds,
        latencyFloorMs: floorMs,
        median: m,
        runs,
      });
    }
    return { rows: ROWS, passes: results, before: BEFORE ?? null };
  } finally {
    await sb.stop();
  }
}

/** The table: per pass, the CLI (and the before build) against the raw loop and the latency floor. */
export function exportTable(exp) {
  const rows = [];
  const notes = [];
  const label = {
    cli: "partner-cli export",
    before: "partner-cli export (before)",
    raw: "raw undici loop",
    chain: "chain loop (next request before the parse)",
  };
  for (const p of exp.passes) {
    const raw = p.median.raw.medianMs;
    for (const kind of ["cli", "before", "raw", "chain"]) {
      const r = p.median[kind];
      if (!r) continue;
      rows.push([
        `${label[kind]}, ${p.pass}`,
        p.rounds,
        r.medianMs,
        Math.round(exp.rows / (r.medianMs / 1000)),
        r.cpuSec ?? "-",
        Math.max(...p.runs[kind].map((x) => x.peakRssMb)),
        `${round(raw / r.medianMs, 2)}x`,
        p.latencyFloorMs ? `${round(r.medianMs / p.latencyFloorMs, 3)}x` : "-",
      ]);
      if (r.sampledRssMb)
        notes.push(
          `${label[kind]}, ${p.pass}: runs ${p.runs[kind].map((x) => x.ms).join(", ")} ms; RSS sampled ${r.sampledRssMb.firstFifth} MB by the first fifth of the rows, ${r.sampledRssMb.whole} MB over the run.`,
        );
    }
    if (p.latencyFloorMs)
      notes.push(
        `${p.pass}: latency floor ${p.median.raw.pages} pages x ${p.latencyMs} ms = ${p.latencyFloorMs} ms.`,
      );
  }
  return [
    `Redemptions export: ${exp.rows.toLocaleString("en-US")} rows from one sandbox (feed pages of 1,000), median of the rounds`,
    table(rows, [
      "process",
      "rounds",
      "median ms",
      "rows/s",
      "CPU s",
      "peak RSS MB (max)",
      "throughput vs raw",
      "vs latency floor",
    ]),
    ...notes,
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = mkdtempSync(join(tmpdir(), "bench-export-"));
  const load0 = loadavg()[0];
  const t0 = Date.now();
  try {
    const exp = await exportBench({ dir });
    const meta = `Node ${process.version}, ${cpus().length} CPUs, load ${round(load0, 1)} before and ${round(loadavg()[0], 1)} after, ${Math.round((Date.now() - t0) / 1000)} s`;
    process.stdout.write(`${exportTable(exp)}\n${meta}\n`);
    if (process.env.BENCH_EXPORT_JSON)
      writeFileSync(process.env.BENCH_EXPORT_JSON, `${JSON.stringify({ meta, ...exp }, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
