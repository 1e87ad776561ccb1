// The embedded sandbox at a real roster size: SCALE_CREATORS creators (50,000) and about 112,000 share
// links (the whole roster on two campaigns, the first 12,000 creators on a third), made through a
// served sandbox with --data-dir, then used by one-shot commands (PARTNER_SANDBOX=1) as a person
// trying the CLI would. Each command is measured against the same command on a fresh embedded
// sandbox (the demo seed), interleaved; the figure is the ratio of the medians, plus peak RSS. The
// read commands must not change the data dir (bytes and modification times are compared).
//
// Used by bench/run.mjs; `node bench/sandbox-scale.mjs` runs it alone (after `npm run build`).
// Knobs: BENCH_SCALE_CREATORS (50000; 0 skips), BENCH_SCALE_RUNS (5), BENCH_SCALE_FROM (a data dir
// filled earlier, copied instead of filling a new one: to compare two builds on the same data).
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { api, dirStat, log, measured, median, msSince, round, servedSandbox, table } from "./lib.mjs";

const day = (d) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
const idOf = (i) => `cr-${String(i).padStart(6, "0")}`;

async function waitForJob(sb, campaignId, jobId) {
  for (;;) {
    const j = await api(sb, "GET", `/campaigns/${campaignId}/assignments/${jobId}`);
    if (j.status === "completed") return j;
    if (j.status === "failed") throw new Error(`assignment job failed: ${j.lastError}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Fills a data dir through a served sandbox; returns what the commands need. */
async function prepare(bin, dataDir, env, creators) {
  const sb = await servedSandbox(bin, ["--data-dir", dataDir, "--seed", "demo"], env);
  const t0 = process.hrtime.bigint();
  try {
    for (let i = 0; i < creators; i += 1000) {
      const batch = [];
      for (let j = i; j < Math.min(creators, i + 1000); j++)
        batch.push({
          externalId: idOf(j),
          name: `Scale Creator ${j}`,
          email: `creator${j}@example.com`,
          handle: `@creator${j}`,
        });
      await api(sb, "POST", "/creators/batch", { creators: batch });
    }
    const campaigns = [];
    for (const ref of ["scale-a", "scale-b", "scale-c"]) {
      const c = await api(sb, "POST", "/campaigns", {
        name: `Scale ${ref}`,
        baseGs1: "0012345000028",
        dates: { from: day(-2), through: day(60) },
        codeLimit: 1_000_000,
        commission: { rate: 0.1, estimatedUnitSalePrice: 3.49 },
        externalReference: ref,
      });
      await api(sb, "POST", `/campaigns/${c.id}/status`, { status: "active" });
      campaigns.push(c);
    }
    const jobs = [];
    for (const c of campaigns.slice(0, 2))
      jobs.push([
        c.id,
        (await api(sb, "POST", `/campaigns/${c.id}/assignments`, { scope: "roster" })).job.id,
      ]);
    let links = 0;
    // One job at a time per campaign: the third campaign's ids go in chunks of 10,000, one after another.
    const third = Math.min(creators, 12_000);
    for (let i = 0; i < third; i += 10_000) {
      const ids = [];
      for (let j = i; j < Math.min(third, i + 10_000); j++) ids.push(idOf(j));
      const c = campaigns[2];
      const { job } = await api(sb, "POST", `/campaigns/${c.id}/assignments`, { externalIds: ids });
      links += (await waitForJob(sb, c.id, job.id)).assignedCount;
    }
    for (const [cid, jid] of jobs) links += (await waitForJob(sb, cid, jid)).assignedCount;
    return { links, seconds: round(msSince(t0) / 1000) };
  } finally {
    await sb.stop();
  }
}

export async function sandboxScaleBench({ bin, tmp, creators = 50_000, runs = 5 }) {
  const base = { ...process.env, NO_COLOR: "1", PARTNER_SANDBOX: "1" };
  delete base.PARTNER_API_KEY;
  delete base.PARTNER_BASE_URL;
  delete base.PARTNER_PROFILE;
  const bigConfig = join(tmp, "scale-big");
  const emptyConfig = join(tmp, "scale-empty");
  mkdirSync(bigConfig, { recursive: true, mode: 0o700 });
  mkdirSync(emptyConfig, { recursive: true, mode: 0o700 });
  const bigData = join(bigConfig, "sandbox");
  let made;
  if (process.env.BENCH_SCALE_FROM) {
    cpSync(process.env.BENCH_SCALE_FROM, bigData, { recursive: true });
    made = { links: Number(process.env.BENCH_SCALE_LINKS ?? 0), seconds: 0 };
    log(`  sandbox at scale: a copy of ${process.env.BENCH_SCALE_FROM}`);
  } else {
    log(`  sandbox at scale: filling a data dir with ${creators.toLocaleString("en-US")} creators...`);
    made = await prepare(bin, bigData, { ...base, PARTNER_CLI_CONFIG_DIR: join(tmp, "scale-cfg") }, creators);
  }
  const prepared = dirStat(bigData);
  log(
    `  made ${made.links.toLocaleString("en-US")} links in ${made.seconds} s; data dir ${round(prepared.bytes / 1e6)} MB`,
  );
  // A copy, untouched by the measured runs, to time the first command on data from this build.
  const pristine = join(tmp, "scale-pristine");
  cpSync(bigData, join(pristine, "sandbox"), { recursive: true });

  const commands = [
    { name: "me", args: ["me"], read: true },
    { name: "roster list", args: ["roster", "list"], read: true },
    { name: "roster get", args: ["roster", "get", "cr-0007"], read: true },
    { name: "campaigns list", args: ["campaigns", "list"], read: true },
    { name: "links list", args: ["links", "list", "scale-a"], read: true },
    { name: "roster set (a write)", args: ["roster", "set", "cr-0007", "--name"], write: true },
  ];
  const env = (dir) => ({ ...base, PARTNER_CLI_CONFIG_DIR: dir });
  const run = async (dir, c, i) => {
    const args = c.write ? [...c.args, `Renamed ${i}`] : c.args;
    const r = await measured([bin, ...args], env(dir));
    if (r.code !== 0) throw new Error(`${c.name} exited ${r.code}: ${r.stderr.slice(0, 400)}`);
    return r;
  };
  // Warm-up: the empty sandbox is created (seeded) by its first command and gets a campaign
  // "scale-a" with the demo roster linked, so `links list` has its counterpart; the big one is read once.
  await run(emptyConfig, commands[0], 0);
  for (const args of [
    [
      "campaigns",
      "create",
      "--no-input",
      "--name",
      "Scale a",
      "--offer",
      "0012345000028",
      "--from",
      day(-2),
      "--through",
      day(60),
      "--code-limit",
      "1000",
      "--rate",
      "0.1",
      "--unit-price",
      "3.49",
      "--external-reference",
      "scale-a",
      "--activate",
    ],
    ["links", "assign", "scale-a", "--roster"],
  ]) {
    const r = await measured([bin, ...args], env(emptyConfig));
    if (r.code !== 0)
      throw new Error(`${args.slice(0, 2).join(" ")} exited ${r.code}: ${r.stderr.slice(0, 400)}`);
  }
  await run(bigConfig, commands[0], 0);

  const rows = [];
  for (const c of commands) {
    const before = dirStat(bigData);
    const s = { empty: [], big: [] };
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? ["empty", "big"] : ["big", "empty"];
      for (const which of order) {
        s[which].push(await run(which === "big" ? bigConfig : emptyConfig, c, i));
      }
    }
    const after = dirStat(bigData);
    const med = (xs) => round(median(xs.map((r) => r.ms)));
    const cpu = (xs) => (xs.every((r) => r.cpuSec !== null) ? median(xs.map((r) => r.cpuSec)) : null);
    const row = {
      command: `partner-cli ${c.args.join(" ")}${c.write ? " ..." : ""}`,
      write: Boolean(c.write),
      runs,
      emptyMedianMs: s.empty.length ? med(s.empty) : null,
      bigMedianMs: med(s.big),
      ratio: s.empty.length ? round(med(s.big) / med(s.empty), 2) : null,
      emptyCpuSec: cpu(s.empty),
      bigCpuSec: cpu(s.big),
      cpuRatio: cpu(s.empty) && cpu(s.big) ? round(cpu(s.big) / cpu(s.empty), 2) : null,
      emptyPeakRssMb: s.empty.length ? Math.max(...s.empty.map((r) => r.peakRssMb)) : null,
      bigPeakRssMb: Math.max(...s.big.map((r) => r.peakRssMb)),
      dataDirChanged: before.bytes !== after.bytes || before.newestMs !== after.newestMs,
      dataDirBytesAfter: after.bytes,
    };
    rows.push(row);
    log(`  ${row.command}: ${row.bigMedianMs} ms (empty ${row.emptyMedianMs} ms), ${row.bigPeakRssMb} MB`);
  }
  // The first command on a data dir written by this build (nothing cached by an earlier command).
  const first = await measured([bin, "me"], env(pristine));
  if (first.code !== 0) throw new Error(`first me exited ${first.code}: ${first.stderr.slice(0, 300)}`);

  const lines = [];
  lines.push(
    `Embedded sandbox at scale: ${creators.toLocaleString("en-US")} creators, ${made.links.toLocaleString("en-US")} links (data dir ${round(prepared.bytes / 1e6)} MB); ${runs} interleaved runs each`,
  );
  lines.push(
    table(
      rows.map((r) => [
        r.command,
        r.emptyMedianMs ?? "-",
        r.bigMedianMs,
        r.ratio === null ? "-" : `${r.ratio}x`,
        r.cpuRatio === null ? "-" : `${r.cpuRatio}x`,
        r.emptyPeakRssMb ?? "-",
        r.bigPeakRssMb,
        r.write ? "(write)" : r.dataDirChanged ? "yes" : "no",
      ]),
      [
        "command",
        "empty ms",
        "at scale ms",
        "ratio",
        "CPU ratio",
        "empty RSS MB",
        "at scale RSS MB",
        "data dir changed",
      ],
    ),
  );
  lines.push(
    `First command (me) on the freshly written data dir: ${round(first.ms)} ms, ${first.peakRssMb} MB peak RSS.`,
  );
  lines.push(
    "ratio: of the wall-time medians (the figure of the goal); CPU ratio: of the user+system CPU medians (GNU time), steadier on a busy machine.",
  );
  return {
    results: {
      creators,
      links: made.links,
      prepareSeconds: made.seconds,
      dataDirBytes: prepared.bytes,
      commands: rows,
      firstCommand: { command: "partner-cli me", ms: round(first.ms), peakRssMb: first.peakRssMb },
    },
    text: lines.join("\n"),
  };
}

// `node bench/sandbox-scale.mjs`: this part alone.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { fileURLToPath } = await import("node:url");
  const root = fileURLToPath(new URL("..", import.meta.url));
  const tmp = mkdtempSync(join(tmpdir(), "partner-cli-bench-"));
  try {
    const r = await sandboxScaleBench({
      bin: process.env.BENCH_CLI ?? join(root, "bin", "partner-cli.js"),
      tmp,
      creators: Number(process.env.BENCH_SCALE_CREATORS ?? 50_000),
      runs: Number(process.env.BENCH_SCALE_RUNS ?? 5),
    });
    process.stdout.write(`${r.text}\n`);
  } finally {
    if (!process.env.BENCH_KEEP) rmSync(tmp, { recursive: true, force: true });
    else process.stderr.write(`kept ${tmp}\n`);
  }
}
