// npm run bench, the xlsx part: 1,000,000 rows written as an Excel workbook, with peak RSS.
//
// 1. The workbook writer alone (the built xlsx chunk of dist/, exceljs's streaming WorkbookWriter
//    with our backpressure), the 21 redemption columns: one tenth of the rows, then all of them, each
//    in its own process. Flat memory means about the same peak RSS for both.
// 2. The CLI end to end, when its redemptions export writes workbooks: `redemptions export --out
//    FILE.xlsx` of the same number of redemptions from a sandbox (made by the caller's
//    sandboxWithRedemptions).
//
// Knob: BENCH_XLSX_ROWS (1000000; 0 skips). Registered in bench/run.mjs.
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { round } from "./lib.mjs";

const ROWS = Number(process.env.BENCH_XLSX_ROWS ?? 1_000_000);

/** The redemption export's columns and their workbook kinds (as src/export/redemption-rows.ts). */
const COLUMNS = [
  ["id", "text"],
  ["serializedGs1", "text"],
  ["redeemedAt", "timestamp"],
  ["recordedAt", "timestamp"],
  ["countingState", "text"],
  ["excludedAt", "timestamp"],
  ["exclusionReason", "text"],
  ["campaignId", "text"],
  ["campaignExternalReference", "text"],
  ["campaignName", "text"],
  ["baseGs1", "text"],
  ["offerTitle", "text"],
  ["brandId", "text"],
  ["brandName", "text"],
  ["creatorExternalId", "text"],
  ["creatorName", "text"],
  ["retailerEmailDomain", "text"],
  ["retailerName", "text"],
  ["change", "text"],
  ["changeEventId", "text"],
  ["changedAt", "timestamp"],
];

function writerScript(root, tmp) {
  const chunks = join(root, "dist", "chunks");
  const chunk = readdirSync(chunks).find((f) => /^xlsx-[A-Za-z0-9]+\.js$/.test(f));
  if (!chunk) throw new Error("no xlsx chunk in dist/chunks: build first (npm run bench builds)");
  const file = join(tmp, "xlsx-writer.mjs");
  writeFileSync(
    file,
    `const { openXlsxSink } = await import(${JSON.stringify(pathToFileURL(join(chunks, chunk)).href)});
const [out, n] = [process.argv[2], Number(process.argv[3])];
const cols = ${JSON.stringify(COLUMNS)}.map(([name, kind]) => ({ name, kind }));
const sink = await openXlsxSink(out, cols, { sheetName: "Redemptions" });
const t0 = Date.now();
const hex = (i, w) => i.toString(16).padStart(w, "0");
for (let start = 0; start < n; start += 1000) {
  const page = [];
  for (let i = start; i < Math.min(n, start + 1000); i++) {
    const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace(/\\.\\d+Z$/, "Z");
    page.push([
      \`\${hex(i, 8)}-0000-4000-8000-\${hex(i, 12)}\`, "01" + String(i).padStart(25, "0"), at, at,
      i % 50 === 0 ? "excluded" : "counted", i % 50 === 0 ? at : null, i % 50 === 0 ? "duplicate" : null,
      "7d0c0000-0000-4000-8000-000000000001", "spring-oats", "Spring oats", "0012345000028",
      "Crunchy Oats 500 g", "b0000000-0000-4000-8000-000000000001", "Crunchy Oats Co.",
      \`cr-\${String(i % 5000).padStart(6, "0")}\`, \`Chloé Müller \${i % 5000}\`, "example.com", "Example Mart",
      "", null, null,
    ]);
  }
  await sink.write(page);
}
await sink.commit();
process.stdout.write(JSON.stringify({ rows: sink.rows, sheets: sink.sheets, backpressure: sink.backpressure, writeMs: Date.now() - t0 }) + "\\n");
`,
  );
  return file;
}

async function writerRun(measured, script, tmp, n) {
  const out = join(tmp, `writer-${n}.xlsx`);
  rmSync(out, { force: true });
  const r = await measured([script, out, String(n)], { ...process.env });
  if (r.code !== 0) throw new Error(`xlsx writer exited ${r.code}: ${r.stderr.slice(0, 500)}`);
  const res = JSON.parse(r.stdout);
  if (res.rows !== n) throw new Error(`xlsx writer wrote ${res.rows} of ${n} rows`);
  const bytes = statSync(out).size;
  rmSync(out, { force: true });
  return {
    rows: n,
    ms: round(r.ms),
    rowsPerSec: Math.round(n / (r.ms / 1000)),
    peakRssMb: r.peakRssMb,
    cpuSec: r.cpuSec,
    fileMb: round(bytes / 2 ** 20),
    sheets: res.sheets,
    backpressure: res.backpressure,
  };
}

/**
 * Runs the xlsx measurements. `measured(args, env)` runs node with args and returns
 * {code, ms, peakRssMb, cpuSec, stdout, stderr}; `sandboxWithRedemptions()` starts a sandbox holding
 * the export bench's redemptions ({baseUrl, writeKey, stop()}).
 */
export async function xlsxBench({ root, bin, tmp, log, measured, sandboxWithRedemptions, exportRows }) {
  if (ROWS <= 0) throw new Error("BENCH_XLSX_ROWS=0");
  const script = writerScript(root, tmp);
  const small = Math.max(1, Math.round(ROWS / 10));
  log(`  xlsx writer: ${small.toLocaleString("en-US")} rows`);
  const writerSmall = await writerRun(measured, script, tmp, small);
  log(`  xlsx writer: ${ROWS.toLocaleString("en-US")} rows`);
  const writerFull = await writerRun(measured, script, tmp, ROWS);
  const result = {
    rows: ROWS,
    writer: { columns: COLUMNS.length, small: writerSmall, full: writerFull },
    cli: null,
  };

  const help = spawnSync(process.execPath, [bin, "redemptions", "export", "--help"], { encoding: "utf8" });
  if (!/xlsx/.test(help.stdout)) {
    result.cli = { skipped: "this build's redemptions export does not write xlsx" };
    return result;
  }
  if (exportRows !== ROWS) {
    result.cli = { skipped: `BENCH_EXPORT_ROWS (${exportRows}) differs from BENCH_XLSX_ROWS` };
    return result;
  }
  const sb = await sandboxWithRedemptions();
  try {
    const out = join(tmp, "export.xlsx");
    rmSync(out, { force: true });
    const env = {
      ...process.env,
      PARTNER_CLI_CONFIG_DIR: join(tmp, "xlsx-config"),
      PARTNER_BASE_URL: sb.baseUrl,
      PARTNER_API_KEY: sb.writeKey,
      NO_COLOR: "1",
    };
    log(`  xlsx: partner-cli redemptions export --out FILE.xlsx (${ROWS.toLocaleString("en-US")} rows)`);
    const r = await measured([bin, "redemptions", "export", "--out", out, "--json"], env);
    if (r.code !== 0) throw new Error(`xlsx export exited ${r.code}: ${r.stderr.slice(0, 500)}`);
    const rows = JSON.parse(r.stdout).summary.rows;
    if (rows !== ROWS) throw new Error(`xlsx export wrote ${rows} of ${ROWS} rows`);
    result.cli = {
      command: "partner-cli redemptions export --out FILE.xlsx --json",
      rows,
      ms: round(r.ms),
      rowsPerSec: Math.round(rows / (r.ms / 1000)),
      peakRssMb: r.peakRssMb,
      cpuSec: r.cpuSec,
      fileMb: round(statSync(out).size / 2 ** 20),
    };
    rmSync(out, { force: true });
  } finally {
    await sb.stop();
  }
  return result;
}

/** Lines for the bench's printed summary. */
export function xlsxLines(x) {
  const w = x.writer;
  const lines = [
    `xlsx: ${x.rows.toLocaleString("en-US")} rows, ${w.columns} columns (exceljs streaming writer, with backpressure)`,
  ];
  for (const r of [w.small, w.full])
    lines.push(
      `  writer alone, ${r.rows.toLocaleString("en-US")} rows: ${r.ms} ms, ${r.rowsPerSec} rows/s, peak RSS ${r.peakRssMb} MB, ${r.fileMb} MB file${r.backpressure ? "" : " (NO backpressure hook: memory not bounded)"}`,
    );
  if (x.cli?.skipped) lines.push(`  CLI export: not measured (${x.cli.skipped})`);
  else if (x.cli)
    lines.push(
      `  partner-cli redemptions export --out FILE.xlsx: ${x.cli.ms} ms, ${x.cli.rowsPerSec} rows/s, peak RSS ${x.cli.peakRssMb} MB, ${x.cli.fileMb} MB file`,
    );
  return lines;
}
