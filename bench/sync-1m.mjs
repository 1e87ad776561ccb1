// npm run bench, part 4: `partner-cli sync` of 1,000,000 redemptions into SQLite and into PostgreSQL,
// against `partner-cli redemptions export` to CSV of the same feed from the same sandbox, in one run
// (interleaved when there are several rounds). Wall time, rows/s, client CPU and peak RSS of each
// process; the goals: SQLite >= 0.8x the export's throughput, PostgreSQL >= 0.7x, peak RSS <= 200 MB.
//
// Called by bench/run.mjs with its helpers. Knobs (environment): BENCH_SYNC_ROWS (1000000; 0 skips),
// BENCH_SYNC_ROUNDS (1), BENCH_PG_URL or PARTNER_TEST_PG_URL (the PostgreSQL server; without one the
// PostgreSQL pass is skipped and says so). Only `--only redemptions` is timed: the other kinds are
// small and would measure the sandbox's lists, not the copy.
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fillRedemptions } from "./lib.mjs";

const GOALS = { sqlite: 0.8, postgres: 0.7, peakRssMb: 200 };

/**
 * Never throws: a failure is logged and returned as { error }.
 * @param {object} h helpers of bench/run.mjs: startSandboxProcess, measured, log, round,
 *   tmp, ROOT, BIN
 */
export async function syncBench(h) {
  try {
    return await measure(h);
  } catch (e) {
    h.log(`  sync not measured: ${e.message}`);
    return { error: e.message };
  }
}

async function measure(h) {
  const rows = Number(process.env.BENCH_SYNC_ROWS ?? 1_000_000);
  const rounds = Number(process.env.BENCH_SYNC_ROUNDS ?? 1);
  if (rows <= 0) throw new Error("BENCH_SYNC_ROWS=0");
  const pgUrl = process.env.BENCH_PG_URL || process.env.PARTNER_TEST_PG_URL || undefined;
  const { log, round, tmp } = h;

  const sb = await h.startSandboxProcess();
  let pg;
  const schema = `bench_sync_${process.pid}`;
  try {
    await generate(h, sb, rows);
    if (pgUrl) {
      const { Client } = createRequire(join(h.ROOT, "package.json"))("pg");
      pg = new Client({ connectionString: pgUrl });
      await pg.connect();
    } else {
      log("  sync into PostgreSQL: skipped (set BENCH_PG_URL or PARTNER_TEST_PG_URL to a database URL)");
    }
    const kinds = ["export", "sqlite", ...(pg ? ["postgres"] : [])];
    const runs = Object.fromEntries(kinds.map((k) => [k, []]));
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? kinds : [...kinds].reverse();
      for (const kind of order) {
        log(`  sync bench round ${i + 1}/${rounds}: ${kind}`);
        const out = join(tmp, `sync-${kind}-${i}`);
        const env = {
          ...process.env,
          PARTNER_CLI_CONFIG_DIR: join(tmp, `sync-config-${kind}-${i}`),
          PARTNER_BASE_URL: sb.baseUrl,
          PARTNER_API_KEY: sb.writeKey,
          NO_COLOR: "1",
        };
        let args;
        if (kind === "export") args = [h.BIN, "redemptions", "export", "--out", `${out}.csv`, "--json"];
        else if (kind === "sqlite")
          args = [h.BIN, "sync", "--to", `sqlite:${out}.sqlite`, "--only", "redemptions", "--json"];
        else {
          await pg.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          const u = new URL(pgUrl);
          u.searchParams.set("schema", schema);
          args = [h.BIN, "sync", "--to", u.toString(), "--only", "redemptions", "--json"];
        }
        const r = await h.measured(args, env);
        if (r.code !== 0) throw new Error(`${kind} exited ${r.code}: ${r.stderr.slice(0, 500)}`);
        const summary = JSON.parse(r.stdout).summary;
        const n = kind === "export" ? summary.rows : summary.kinds.redemptions.read;
        if (n !== rows) throw new Error(`${kind} copied ${n} of ${rows} redemptions`);
        if (kind === "sqlite") {
          // The database holds every row once.
          const Database = createRequire(join(h.ROOT, "package.json"))("libsql");
          const db = new Database(`${out}.sqlite`);
          const [count] = db.prepare("SELECT COUNT(*) FROM redemptions").raw(true).get();
          db.close();
          if (count !== rows) throw new Error(`SQLite holds ${count} of ${rows} rows`);
        } else if (kind === "postgres") {
          const c = await pg.query(`SELECT COUNT(*)::int AS n FROM ${schema}.redemptions`);
          if (c.rows[0].n !== rows) throw new Error(`PostgreSQL holds ${c.rows[0].n} of ${rows} rows`);
        }
        rmSync(`${out}.csv`, { force: true });
        rmSync(`${out}.sqlite`, { force: true });
        rmSync(`${out}.sqlite-wal`, { force: true });
        rmSync(`${out}.sqlite-shm`, { force: true });
        runs[kind].push({
          ms: round(r.ms),
          rowsPerSec: Math.round(rows / (r.ms / 1000)),
          peakRssMb: r.peakRssMb,
          cpuSec: r.cpuSec,
        });
      }
    }
    const med = (xs) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    };
    const sum = (k) => ({
      runs: runs[k].length,
      medianMs: round(med(runs[k].map((x) => x.ms))),
      rowsPerSec: Math.round(med(runs[k].map((x) => x.rowsPerSec))),
      peakRssMb: round(Math.max(...runs[k].map((x) => x.peakRssMb))),
      cpuSec: runs[k][0].cpuSec === null ? null : round(med(runs[k].map((x) => x.cpuSec)), 2),
      samples: runs[k],
    });
    const exp = sum("export");
    const result = {
      rows,
      rounds,
      export: { command: "partner-cli redemptions export --out FILE.csv", ...exp },
      sqlite: {
        command: "partner-cli sync --to sqlite:FILE --only redemptions",
        ...sum("sqlite"),
      },
      postgres: pg
        ? { command: "partner-cli sync --to postgres://... --only redemptions", ...sum("postgres") }
        : { skipped: "no PostgreSQL URL (BENCH_PG_URL or PARTNER_TEST_PG_URL)" },
      goals: GOALS,
    };
    result.sqlite.throughputVsExport = round(result.sqlite.rowsPerSec / exp.rowsPerSec, 2);
    if (pg) result.postgres.throughputVsExport = round(result.postgres.rowsPerSec / exp.rowsPerSec, 2);
    const line = (name, s, goal) =>
      [
        name,
        s.medianMs,
        s.rowsPerSec,
        s.cpuSec ?? "-",
        s.peakRssMb,
        goal === undefined ? "1x" : `${s.throughputVsExport}x (goal >= ${goal}x)`,
      ].map(String);
    const table = [
      line("redemptions export (CSV)", result.export),
      line("sync into SQLite", result.sqlite, GOALS.sqlite),
      ...(pg ? [line("sync into PostgreSQL", result.postgres, GOALS.postgres)] : []),
    ];
    const headers = ["process", "ms", "rows/s", "client CPU s", "peak RSS MB", "throughput vs export"];
    const widths = headers.map((hd, i) => Math.max(hd.length, ...table.map((r) => r[i].length)));
    const fmt = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
    result.lines = [
      `Sync: ${rows.toLocaleString("en-US")} redemptions from one sandbox (feed pages of 1,000), ${rounds} round(s)`,
      fmt(headers),
      fmt(widths.map((w) => "-".repeat(w))),
      ...table.map(fmt),
      ...(pg ? [] : ["sync into PostgreSQL: not measured (no BENCH_PG_URL or PARTNER_TEST_PG_URL)."]),
      `Peak RSS goal <= ${GOALS.peakRssMb} MB: ${
        Math.max(result.sqlite.peakRssMb, pg ? result.postgres.peakRssMb : 0) <= GOALS.peakRssMb
          ? "met"
          : "NOT met"
      }.`,
    ];
    return result;
  } finally {
    if (pg) {
      await pg.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
      await pg.end().catch(() => {});
    }
    await sb.stop();
  }
}

/** `rows` redemptions on one campaign linked to 50 creators (as the export bench makes them). */
async function generate(h, sb, rows) {
  const { generateMs } = await fillRedemptions(sb, rows, "sync");
  h.log(`  generated ${rows} redemptions in ${h.round(generateMs / 1000)} s`);
}
