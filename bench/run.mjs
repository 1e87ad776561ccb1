// npm run bench: start-up and roster-import figures for partner-cli, measured in one interleaved run.
//
// 1. Start-up (bench/startup.mjs): `partner-cli --version` and `--help` against bare `node -e 0`, and
//    `partner-cli me` against a served sandbox against a plain undici script making the same request,
//    interleaved, median wall-clock ms and the ratio of the medians (peak RSS for `me`).
// 2. Import: `partner-cli roster import` of a generated 100,000-row CSV against a fresh sandbox, against
//    a raw undici loop posting the same rows as 100 batches of 1,000 to POST /creators/batch on another
//    fresh sandbox. Rows/s, wall time and peak RSS of each process. Rounds alternate CLI and raw.
//
// 3. Export (bench/export-1m.mjs): `partner-cli redemptions export` of 1,000,000 redemptions
//    (generated in a sandbox with `POST /_sandbox/simulate`) to CSV, against a raw undici loop reading
//    the same feed pages and writing JSON lines, 3 rotating rounds (median); then both again with
//    50 ms of latency injected per request, also against the latency floor (pages x 50 ms).
//
// 4. Peak RSS of a 1,000,000-row roster import (bench/import-1m.mjs).
// 5. xlsx (bench/xlsx-1m.mjs): 1,000,000 rows written as a workbook, peak RSS of the writer and the CLI;
//    then the xlsx libraries compared (bench/xlsx-libs.mjs): install size, write and read of 1,000,000 rows.
// 6. Sandbox at scale (bench/sandbox-scale.mjs): one-shot commands on an embedded sandbox holding
//    50,000 creators and 112,022 links against the same commands on a fresh demo sandbox; peak RSS,
//    and whether a read changed the data dir.
//
// 7. Simulate (bench/simulate-1m.mjs): a million claims and redemptions with their ~2 million events in
//    one POST /_sandbox/simulate, in memory and with --data-dir, against the same without events.
// 8. Load (bench/sandbox-load.mjs): `partner-cli sandbox start` (in memory and --data-dir) serving 100
//    concurrent clients mixing reads and writes for 60 s: requests/s, p50/p99, errors, server RSS.
//
// Plain JS on the built code: run through `npm run bench` (it builds first). Writes bench/results.json.
// Knobs (environment): BENCH_STARTUP_RUNS (15), BENCH_ROWS (100000), BENCH_ROUNDS (2; 0 skips the
// import), BENCH_BUDGET_SEC (110: no import round starts after that),
// BENCH_EXPORT_ROWS (1000000; 0 skips the export), BENCH_EXPORT_ROUNDS (3), BENCH_EXPORT_LATENCY_MS
// (50; 0 skips that pass), BENCH_EXPORT_LATENCY_ROUNDS (1), BENCH_CLI_BEFORE (another build's export too),
// BENCH_SANDBOX=bundle (serve the sandbox from an esbuild bundle of src/sandbox/server.ts instead of
// `partner-cli sandbox start`), BENCH_XLSX_ROWS (1000000; 0 skips the xlsx part), BENCH_XLSX_LIBS_ROWS
// (1000000; 0 skips the comparison of xlsx libraries), BENCH_XLSX_LIBS (candidate ids, default all).
// `partner-cli sandbox start`), BENCH_ME_RUNS (15), BENCH_SCALE_CREATORS (50000; 0 skips the sandbox
// at scale), BENCH_SCALE_RUNS (5), BENCH_SIMULATE_ROWS (1000000; 0 skips), BENCH_SIMULATE_MODES
// (memory,file), BENCH_LOAD_SEC (60; 0 skips), BENCH_LOAD_CLIENTS (100), BENCH_LOAD_MODES (memory,file).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { exportBench, exportTable, sandboxWithRedemptions } from "./export-1m.mjs";
import { importOneMillion } from "./import-1m.mjs";
import { log, measured, median, round, spawnSandbox, table } from "./lib.mjs";
import { xlsxBench, xlsxLines } from "./xlsx-1m.mjs";
import { xlsxLibsBench, xlsxLibsLines } from "./xlsx-libs.mjs";
import { syncBench } from "./sync-1m.mjs";
import { sandboxScaleBench } from "./sandbox-scale.mjs";
import { sandboxLoadBench } from "./sandbox-load.mjs";
import { simulateBench } from "./simulate-1m.mjs";
import { startupBench } from "./startup.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "partner-cli.js");
const NODE = process.execPath;
const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15);
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const BATCH = 1000;
/** After this many seconds no new import round starts (the machine may be shared and slow). */
const BUDGET_SEC = Number(process.env.BENCH_BUDGET_SEC ?? 110);
/** BENCH_ONLY=import (or a comma list of startup, import, export, xlsx, sync, scale, simulate, load): run only those parts. */
const ONLY = (process.env.BENCH_ONLY ?? "").split(",").filter(Boolean);
const wants = (part) => ONLY.length === 0 || ONLY.includes(part);
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

const tmp = mkdtempSync(join(tmpdir(), "partner-cli-bench-"));
const configDir = join(tmp, "config");

// ---------------------------------------------------------------------------------------------
// Sandboxes: one fresh process per measured run.

let bundledServer;
async function sandboxScript() {
  // The sandbox server bundled on its own (no CLI around it), for BENCH_SANDBOX=bundle or when
  // `sandbox start` is not available in this build.
  if (!bundledServer) {
    const { build } = await import(
      pathToFileURL(join(ROOT, "node_modules", "esbuild", "lib", "main.js")).href
    );
    bundledServer = join(tmp, "sandbox-server.mjs");
    await build({
      entryPoints: [join(ROOT, "src", "sandbox", "server.ts")],
      outfile: bundledServer,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      logLevel: "error",
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    });
  }
  const script = join(tmp, "serve.mjs");
  writeFileSync(
    script,
    `import { startSandbox } from ${JSON.stringify(pathToFileURL(bundledServer).href)};
const sb = await startSandbox({ port: 0, seed: "empty" });
process.stdout.write(JSON.stringify({ baseUrl: sb.url, writeKey: sb.writeKey }) + "\\n");
process.on("SIGTERM", async () => { await sb.close(); process.exit(0); });
`,
  );
  return [script];
}

let sandboxMode = process.env.BENCH_SANDBOX === "bundle" ? "bundle" : "cli";

async function startSandboxProcess() {
  const args =
    sandboxMode === "cli"
      ? [BIN, "sandbox", "start", "--port", "0", "--seed", "empty", "--json"]
      : await sandboxScript();
  return spawnSandbox(
    args,
    { ...process.env, PARTNER_CLI_CONFIG_DIR: configDir, NO_COLOR: "1" },
    {
      startMs: 30_000,
      stopMs: 10_000,
    },
  );
}

async function freshSandbox() {
  try {
    return await startSandboxProcess();
  } catch (e) {
    if (sandboxMode !== "cli") throw e;
    log(
      `  (partner-cli sandbox start failed: ${e.message.split("\n")[0]}; using a bundle of src/sandbox/server.ts)`,
    );
    sandboxMode = "bundle";
    return startSandboxProcess();
  }
}

// ---------------------------------------------------------------------------------------------
// Processes measured for wall time and peak RSS.

function writeRoster(path, n) {
  const lines = ["externalId,name,email,handle,active"];
  for (let i = 0; i < n; i++) {
    const id = `cr-${String(i).padStart(6, "0")}`;
    lines.push(
      `${id},Creator ${i} Müller,creator${i}@example.com,@creator${i},${i % 10 === 9 ? "false" : "true"}`,
    );
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
}

/** The raw loop: the same rows, read with a plain split, posted as batches with undici, nothing else. */
function rawScript() {
  const script = join(tmp, "raw.mjs");
  writeFileSync(
    script,
    `import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const { Agent } = createRequire(${JSON.stringify(join(ROOT, "package.json"))})("undici");
const [file, baseUrl, key, batchSize] = process.argv.slice(2);
const lines = readFileSync(file, "utf8").split("\\n").filter(Boolean).slice(1);
const rows = lines.map((l) => {
  const [externalId, name, email, handle, active] = l.split(",");
  return { externalId, name, email, handle, active: active === "true" };
});
const origin = new URL(baseUrl).origin;
const agent = new Agent({ keepAliveTimeout: 10_000 });
const summary = { rows: 0, added: 0, updated: 0, unchanged: 0, rejected: 0 };
for (let i = 0; i < rows.length; i += Number(batchSize)) {
  const res = await agent.request({
    origin,
    path: "/api/partner/v1/creators/batch",
    method: "POST",
    headers: { authorization: "Bearer " + key, "content-type": "application/json" },
    body: JSON.stringify({ creators: rows.slice(i, i + Number(batchSize)) }),
  });
  const body = await res.body.json();
  if (res.statusCode !== 200) throw new Error("batch answered " + res.statusCode + ": " + JSON.stringify(body));
  for (const k of Object.keys(summary)) summary[k] += body.summary[k];
}
await agent.close();
process.stdout.write(JSON.stringify({ summary }) + "\\n");
`,
  );
  return script;
}

async function importRun(kind, csv, raw) {
  const sb = await freshSandbox();
  try {
    const env = {
      ...process.env,
      PARTNER_CLI_CONFIG_DIR: configDir,
      PARTNER_BASE_URL: sb.baseUrl,
      PARTNER_API_KEY: sb.writeKey,
      NO_COLOR: "1",
    };
    const args =
      kind === "cli"
        ? [BIN, "roster", "import", csv, "--json"]
        : [raw, csv, sb.baseUrl, sb.writeKey, String(BATCH)];
    const r = await measured(args, env);
    if (r.code !== 0) throw new Error(`${kind} import exited ${r.code}: ${r.stderr.slice(0, 500)}`);
    let out;
    try {
      out = JSON.parse(r.stdout);
    } catch {
      throw new Error(`${kind} import printed no JSON: ${r.stdout.slice(0, 300)}`);
    }
    const added = out.summary?.added;
    if (added !== ROWS)
      throw new Error(`${kind} import added ${added} of ${ROWS} rows: ${r.stdout.slice(0, 300)}`);
    return {
      ms: r.ms,
      rowsPerSec: Math.round(ROWS / (r.ms / 1000)),
      peakRssMb: r.peakRssMb,
      cpuSec: r.cpuSec,
    };
  } finally {
    await sb.stop();
  }
}

async function imports(started) {
  if (ROUNDS <= 0) throw new Error("BENCH_ROUNDS=0");
  const csv = join(tmp, "roster.csv");
  writeRoster(csv, ROWS);
  const raw = rawScript();
  const runs = { cli: [], raw: [] };
  let skipped = 0;
  for (let i = 0; i < ROUNDS; i++) {
    if (i > 0 && (Date.now() - started) / 1000 > BUDGET_SEC) {
      skipped = ROUNDS - i;
      log(`  time budget of ${BUDGET_SEC} s spent: ${skipped} import round(s) skipped`);
      break;
    }
    const order = i % 2 === 0 ? ["cli", "raw"] : ["raw", "cli"];
    for (const kind of order) {
      log(`  import round ${i + 1}/${ROUNDS}: ${kind}`);
      runs[kind].push(await importRun(kind, csv, raw));
    }
  }
  const sum = (kind) => ({
    runs: runs[kind].length,
    medianMs: round(median(runs[kind].map((r) => r.ms))),
    rowsPerSec: Math.round(median(runs[kind].map((r) => r.rowsPerSec))),
    peakRssMb: round(median(runs[kind].map((r) => r.peakRssMb))),
    cpuSec: runs[kind][0].cpuSec === null ? null : round(median(runs[kind].map((r) => r.cpuSec)), 2),
    samples: runs[kind].map((r) => ({ ...r, ms: round(r.ms) })),
  });
  const cli = sum("cli");
  const rawLoop = sum("raw");
  return {
    rows: ROWS,
    batchSize: BATCH,
    roundsRun: ROUNDS - skipped,
    sandbox:
      sandboxMode === "cli"
        ? "partner-cli sandbox start --seed empty (in memory)"
        : "bundled src/sandbox/server.ts",
    peakRssMethod: TIME
      ? "GNU time -v (maximum resident set size)"
      : "/proc/<pid>/status VmHWM sampled every 20 ms",
    cli: { command: `partner-cli roster import <${ROWS} rows>.csv --json`, ...cli },
    raw: { command: "undici Agent.request loop, same rows, 100 sequential batches of 1,000", ...rawLoop },
    cliTimeRatioToRaw: round(cli.medianMs / rawLoop.medianMs, 2),
    cliThroughputShareOfRaw: round(cli.rowsPerSec / rawLoop.rowsPerSec, 2),
    cliCpuRatioToRaw: cli.cpuSec && rawLoop.cpuSec ? round(cli.cpuSec / rawLoop.cpuSec, 2) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// 3. Export

const EXPORT_ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);

// The export itself is bench/export-1m.mjs (exportBench), which also makes its sandbox.

// ---------------------------------------------------------------------------------------------

async function main() {
  if (!existsSync(join(ROOT, "dist", "main.js")))
    throw new Error("dist/ is missing: run `npm run bench` (it builds first).");
  const started = Date.now();
  const load0 = loadavg();
  log(
    `partner-cli bench: ${STARTUP_RUNS} start-up rounds, ${ROUNDS} import rounds of ${ROWS} rows (temp dir ${tmp})`,
  );
  const skipped = (part) => {
    log(`  ${part} not measured: BENCH_ONLY=${ONLY.join(",")}`);
    return { error: `not measured (BENCH_ONLY=${ONLY.join(",")})` };
  };
  const start = wants("startup")
    ? await startupBench({
        root: ROOT,
        bin: BIN,
        tmp,
        runs: STARTUP_RUNS,
        meRuns: Number(process.env.BENCH_ME_RUNS ?? 15),
      })
    : {
        text: "Start-up: not measured (BENCH_ONLY).",
        results: { startup: skipped("start-up"), me: undefined },
      };
  let imp;
  let importError;
  try {
    if (!wants("import")) throw new Error("BENCH_ONLY leaves the import out");
    imp = await imports(started);
  } catch (e) {
    importError = e.message;
    log(`  import not measured: ${e.message}`);
  }
  let exp;
  let exportError;
  try {
    if (!wants("export")) throw new Error("BENCH_ONLY leaves the export out");
    if (EXPORT_ROWS <= 0) throw new Error("BENCH_EXPORT_ROWS=0");
    exp = await exportBench({ bin: BIN, dir: tmp });
  } catch (e) {
    exportError = e.message;
    log(`  export not measured: ${e.message}`);
  }
  let oneM;
  try {
    if (!wants("import")) throw new Error("BENCH_ONLY leaves the import out");
    oneM = await importOneMillion({ measured, freshSandbox, tmp, bin: BIN, configDir, log });
  } catch (e) {
    oneM = { error: e.message };
    log(`  1M-row import not measured: ${e.message}`);
  }
  let xlsx;
  try {
    if (!wants("xlsx")) throw new Error("BENCH_ONLY leaves xlsx out");
    xlsx = await xlsxBench({
      root: ROOT,
      bin: BIN,
      tmp,
      log,
      measured,
      sandboxWithRedemptions: () => sandboxWithRedemptions(BIN, EXPORT_ROWS),
      exportRows: EXPORT_ROWS,
    });
  } catch (e) {
    xlsx = { error: e.message };
    log(`  xlsx not measured: ${e.message}`);
  }
  let xlsxLibs;
  try {
    if (!wants("xlsx")) throw new Error("BENCH_ONLY leaves xlsx out");
    xlsxLibs = await xlsxLibsBench({ root: ROOT, tmp, log, measured });
  } catch (e) {
    xlsxLibs = { error: e.message };
    log(`  xlsx libraries not measured: ${e.message}`);
  }
  const sync = wants("sync")
    ? await syncBench({ startSandboxProcess, measured, log, round, tmp, ROOT, BIN })
    : { ...skipped("sync"), lines: ["Sync: not measured (BENCH_ONLY)."] };
  let scale;
  let scaleError;
  try {
    const creators = Number(process.env.BENCH_SCALE_CREATORS ?? 50_000);
    if (creators <= 0) throw new Error("BENCH_SCALE_CREATORS=0");
    if (!wants("scale")) throw new Error("BENCH_ONLY leaves the sandbox at scale out");
    scale = await sandboxScaleBench({
      bin: BIN,
      tmp,
      creators,
      runs: Number(process.env.BENCH_SCALE_RUNS ?? 5),
    });
  } catch (e) {
    scaleError = e.message;
    log(`  sandbox at scale not measured: ${e.message}`);
  }
  const part = async (name, knob, run) => {
    try {
      if (!wants(name)) throw new Error(`BENCH_ONLY leaves ${name} out`);
      if (knob <= 0) throw new Error(`${name} knob is 0`);
      return await run();
    } catch (e) {
      log(`  ${name} not measured: ${e.message}`);
      return { error: e.message };
    }
  };
  const modes = (v) => (v ?? "memory,file").split(",").filter(Boolean);
  const simRows = Number(process.env.BENCH_SIMULATE_ROWS ?? 1_000_000);
  const simulate = await part("simulate", simRows, () =>
    simulateBench({ bin: BIN, tmp, rows: simRows, modes: modes(process.env.BENCH_SIMULATE_MODES) }),
  );
  const loadSec = Number(process.env.BENCH_LOAD_SEC ?? 60);
  const load = await part("load", loadSec, () =>
    sandboxLoadBench({
      bin: BIN,
      tmp,
      seconds: loadSec,
      clients: Number(process.env.BENCH_LOAD_CLIENTS ?? 100),
      modes: modes(process.env.BENCH_LOAD_MODES),
    }),
  );
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
    memoryGb: round(totalmem() / 2 ** 30),
    loadAverage: { before: load0.map((x) => round(x, 2)), after: loadavg().map((x) => round(x, 2)) },
    durationSec: round((Date.now() - started) / 1000),
    startup: start.results.startup,
    me: start.results.me,
    import: imp ?? { error: importError },
    export: exp ?? { error: exportError },
    importOneMillion: oneM,
    xlsx,
    xlsxLibs,
    sync,
    sandboxAtScale: scale?.results ?? { error: scaleError },
    simulate: simulate.results ?? simulate,
    sandboxLoad: load.results ?? load,
  };
  // A partial run (BENCH_ONLY) leaves bench/results.json alone unless BENCH_RESULTS names a file.
  const resultsFile =
    process.env.BENCH_RESULTS ?? (ONLY.length ? undefined : join(ROOT, "bench", "results.json"));
  if (resultsFile) {
    writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
    // Keep the file in the repository's format, so `npm run lint` stays clean after a bench run.
    const biome = join(ROOT, "node_modules", "@biomejs", "biome", "bin", "biome");
    if (existsSync(biome))
      spawnSync(NODE, [biome, "format", "--write", resultsFile], { stdio: "ignore", cwd: ROOT });
  }

  const out = [];
  out.push(start.text);
  out.push("");
  if (imp) {
    out.push(
      `Roster import: ${ROWS.toLocaleString("en-US")} rows, batches of ${BATCH}, fresh sandbox per run (${imp.sandbox})`,
    );
    out.push(
      table(
        [
          [
            "partner-cli roster import",
            imp.cli.medianMs,
            imp.cli.rowsPerSec,
            imp.cli.cpuSec ?? "-",
            imp.cli.peakRssMb,
          ],
          ["raw undici loop", imp.raw.medianMs, imp.raw.rowsPerSec, imp.raw.cpuSec ?? "-", imp.raw.peakRssMb],
        ],
        ["process", "median ms", "rows/s", "client CPU s", "peak RSS MB"],
      ),
    );
    out.push(
      `CLI takes ${imp.cliTimeRatioToRaw}x the raw loop's wall time (${Math.round(imp.cliThroughputShareOfRaw * 100)}% of its throughput)` +
        (imp.cliCpuRatioToRaw ? ` and ${imp.cliCpuRatioToRaw}x its client CPU time` : "") +
        `; peak RSS by ${imp.peakRssMethod}.`,
    );
  } else {
    out.push(`Roster import: not measured (${importError}).`);
  }
  out.push("");
  if (exp) {
    out.push(exportTable(exp));
  } else {
    out.push(`Redemptions export: not measured (${exportError}).`);
  }
  out.push("", ...(sync.lines ?? [`Sync: not measured (${sync.error}).`]));
  out.push("");
  out.push(...(xlsx.error ? [`xlsx: not measured (${xlsx.error}).`] : xlsxLines(xlsx)), "");
  out.push(
    ...(xlsxLibs.error ? [`xlsx libraries: not measured (${xlsxLibs.error}).`] : xlsxLibsLines(xlsxLibs)),
    "",
  );
  out.push(
    oneM.error
      ? `Roster import of 1,000,000 rows: not measured (${oneM.error}).`
      : `Roster import of ${oneM.rows.toLocaleString("en-US")} rows: peak RSS ${oneM.import.peakRssMb} MB (${oneM.import.rowsPerSec} rows/s); --dry-run ${oneM.dryRun.peakRssMb} MB.`,
  );
  out.push("");
  out.push(scale ? scale.text : `Sandbox at scale: not measured (${scaleError}).`);
  out.push("");
  out.push(simulate.text ?? `Simulate: not measured (${simulate.error}).`, "");
  out.push(load.text ?? `Sandbox under load: not measured (${load.error}).`, "");
  out.push(
    `Node ${process.version}, ${results.cpus}; load average ${results.loadAverage.before.join(" ")} before, ${results.loadAverage.after.join(" ")} after; ${results.durationSec} s. ${resultsFile ? `Written to ${resultsFile}.` : "No results file (BENCH_ONLY without BENCH_RESULTS)."}`,
  );
  process.stdout.write(`${out.join("\n")}\n`);
}

try {
  await main();
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
