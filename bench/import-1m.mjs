// Bench case (registered in bench/run.mjs): peak RSS of `partner-cli roster import` of a 1,000,000-row
// roster against a fresh sandbox, and of the same file with --dry-run (reading and checking only, no
// network). Peak RSS by the shared `measured` (GNU time -v, else /proc VmHWM).
// Knob: BENCH_IMPORT_1M_ROWS (1000000; 0 skips).
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export const IMPORT_1M_ROWS = Number(process.env.BENCH_IMPORT_1M_ROWS ?? 1_000_000);

function writeRoster(path, n) {
  const parts = ["externalId,name,email,handle,active\n"];
  for (let i = 0; i < n; i++) {
    parts.push(
      `m1-${String(i).padStart(7, "0")},Creator ${i} Müller,creator${i}@example.com,@creator${i},${i % 10 === 9 ? "false" : "true"}\n`,
    );
  }
  writeFileSync(path, parts.join(""));
}

/**
 * @param {{ measured: (args: string[], env: NodeJS.ProcessEnv) => Promise<{code: number, ms: number, peakRssMb: number, cpuSec: number|null, stdout: string, stderr: string}>,
 *           freshSandbox: () => Promise<{baseUrl: string, writeKey: string, stop(): Promise<void>}>,
 *           tmp: string, bin: string, configDir: string, log: (s: string) => void }} h
 */
export async function importOneMillion(h) {
  const rows = IMPORT_1M_ROWS;
  if (rows <= 0) throw new Error("BENCH_IMPORT_1M_ROWS=0");
  const csv = join(h.tmp, "roster-1m.csv");
  writeRoster(csv, rows);
  const base = { ...process.env, PARTNER_CLI_CONFIG_DIR: h.configDir, NO_COLOR: "1" };
  const check = (r, what) => {
    if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stderr.slice(0, 500)}`);
    const out = JSON.parse(r.stdout);
    const n = out.summary?.rows;
    if (n !== rows) throw new Error(`${what} read ${n} of ${rows} rows`);
    return out;
  };
  h.log(`  import of ${rows.toLocaleString("en-US")} rows: --dry-run`);
  const dry = await h.measured([h.bin, "roster", "import", csv, "--dry-run", "--json"], base);
  check(dry, "dry run");
  const sb = await h.freshSandbox();
  try {
    h.log(`  import of ${rows.toLocaleString("en-US")} rows: to a fresh sandbox`);
    const env = { ...base, PARTNER_BASE_URL: sb.baseUrl, PARTNER_API_KEY: sb.writeKey };
    const r = await h.measured([h.bin, "roster", "import", csv, "--json"], env);
    const out = check(r, "import");
    if (out.summary.added !== rows) throw new Error(`import added ${out.summary.added} of ${rows}`);
    const round = (x) => Math.round(x * 10) / 10;
    return {
      rows,
      import: {
        command: `partner-cli roster import <${rows} rows>.csv --json`,
        ms: round(r.ms),
        rowsPerSec: Math.round(rows / (r.ms / 1000)),
        peakRssMb: r.peakRssMb,
        cpuSec: r.cpuSec,
      },
      dryRun: {
        command: `partner-cli roster import <${rows} rows>.csv --dry-run --json`,
        ms: round(dry.ms),
        peakRssMb: dry.peakRssMb,
        cpuSec: dry.cpuSec,
      },
    };
  } finally {
    await sb.stop();
  }
}
