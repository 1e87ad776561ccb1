// Start-up and one request, each as a ratio to a baseline measured in the same run:
//
// 1. `partner-cli --version`, `--help` and `__complete` against bare `node -e 0`: STARTUP_RUNS rounds
//    after one unmeasured warm-up run each; every round runs the three in a rotating order.
// 2. `partner-cli me` against a served sandbox (`sandbox start --seed demo`) with the key in
//    PARTNER_API_KEY, and again through a stored profile, against a plain undici script that makes the
//    same GET /me on a keep-alive Agent and prints the body. Rounds rotate the order too. BENCH_ME_RUNS=0
//    skips it (the start-up rows alone: `BENCH_ME_RUNS=0 node bench/startup.mjs`).
//
// Wall clock from spawn to exit; the median and the ratio of the medians. Peak RSS (GNU time) for `me`.
// Used by bench/run.mjs; `node bench/startup.mjs` runs it alone (after `npm run build`).
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { log, measured, median, msSince, NODE, round, servedSandbox, table } from "./lib.mjs";

/** Interleaved rounds of `cases` (each {name, args, env}); returns medians and ratios to the first. */
async function interleaved(cases, runs, { rss = false } = {}) {
  const one = async (c) => {
    if (rss) {
      const r = await measured(c.args, c.env);
      if (r.code !== 0) throw new Error(`${c.name} exited ${r.code}: ${r.stderr.slice(0, 300)}`);
      return { ms: r.ms, rss: r.peakRssMb };
    }
    const t0 = process.hrtime.bigint();
    const r = spawnSync(NODE, c.args, { stdio: ["ignore", "ignore", "pipe"], env: c.env });
    const ms = msSince(t0);
    if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}: ${r.stderr}`);
    return { ms, rss: null };
  };
  // One unmeasured run each warms the file cache (and Node's compile cache where it exists).
  for (const c of cases) await one(c);
  const samples = cases.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < cases.length; j++) {
      const k = (i + j) % cases.length;
      samples[k].push(await one(cases[k]));
    }
  }
  const base = median(samples[0].map((s) => s.ms));
  return cases.map((c, i) => {
    const ms = samples[i].map((s) => s.ms);
    return {
      command: c.name,
      runs: ms.length,
      medianMs: round(median(ms)),
      minMs: round(Math.min(...ms)),
      ratio: round(median(ms) / base, 2),
      peakRssMb: rss ? Math.max(...samples[i].map((s) => s.rss)) : undefined,
      samplesMs: ms.map((x) => round(x)),
    };
  });
}

/** The baseline for `me`: the same GET /me with undici's Agent, nothing else. */
function rawMeScript(root, tmp) {
  const file = join(tmp, "raw-me.mjs");
  writeFileSync(
    file,
    `import { createRequire } from "node:module";
const { Agent } = createRequire(${JSON.stringify(join(root, "package.json"))})("undici");
const agent = new Agent({ keepAliveTimeout: 10_000 });
const origin = new URL(process.env.PARTNER_BASE_URL).origin;
const res = await agent.request({
  origin,
  path: "/api/partner/v1/me",
  method: "GET",
  headers: { authorization: "Bearer " + process.env.PARTNER_API_KEY, accept: "application/json" },
});
const body = await res.body.json();
if (res.statusCode !== 200) throw new Error("GET /me answered " + res.statusCode);
process.stdout.write(JSON.stringify(body) + "\\n");
await agent.close();
`,
  );
  return file;
}

export async function startupBench({ root, bin, tmp, runs = 15, meRuns = 15 }) {
  const configDir = join(tmp, "startup-config");
  const env = { ...process.env, PARTNER_CLI_CONFIG_DIR: configDir, NO_COLOR: "1" };
  log("  start-up...");
  const startup = await interleaved(
    [
      { name: "node -e 0", args: ["-e", "0"], env },
      { name: "partner-cli --version", args: [bin, "--version"], env },
      { name: "partner-cli --help", args: [bin, "--help"], env },
      // What every TAB of the PowerShell completion script runs (the others ask it for stored values only).
      { name: "partner-cli __complete -- offers g", args: [bin, "__complete", "--", "offers", "g"], env },
    ],
    runs,
  );

  log("  me against a served sandbox...");
  let me;
  let meError = meRuns > 0 ? undefined : "BENCH_ME_RUNS=0";
  const sb = meError
    ? undefined
    : await servedSandbox(bin, ["--seed", "demo"], env).catch((e) => {
        meError = e.message;
        return undefined;
      });
  if (sb) {
    try {
      const profileDir = join(tmp, "me-profile-config");
      mkdirSync(profileDir, { recursive: true, mode: 0o700 });
      writeFileSync(
        join(profileDir, "config.json"),
        JSON.stringify(
          {
            profiles: {
              bench: { baseUrl: sb.baseUrl, apiKey: sb.writeKey, savedAt: new Date().toISOString() },
            },
            cursors: {},
            jobs: {},
            currentProfile: "bench",
          },
          undefined,
          "\t",
        ),
        { mode: 0o600 },
      );
      const keyEnv = { ...env, PARTNER_BASE_URL: sb.baseUrl, PARTNER_API_KEY: sb.writeKey };
      const profileEnv = { ...env, PARTNER_CLI_CONFIG_DIR: profileDir };
      delete profileEnv.PARTNER_BASE_URL;
      delete profileEnv.PARTNER_API_KEY;
      me = await interleaved(
        [
          { name: "raw undici GET /me", args: [rawMeScript(root, tmp)], env: keyEnv },
          { name: "partner-cli me (PARTNER_API_KEY)", args: [bin, "me"], env: keyEnv },
          { name: "partner-cli me (stored profile)", args: [bin, "me"], env: profileEnv },
        ],
        meRuns,
        { rss: true },
      );
    } catch (e) {
      meError = e.message;
    } finally {
      await sb.stop();
    }
  }

  const lines = [];
  lines.push(`Start-up (${runs} interleaved runs each, wall clock from spawn to exit)`);
  lines.push(
    table(
      startup.map((s) => [s.command, s.medianMs, s.minMs, `${s.ratio}x`]),
      ["command", "median ms", "min ms", "vs node -e 0"],
    ),
  );
  lines.push("");
  if (me) {
    lines.push(`me against a served sandbox (${meRuns} interleaved runs each)`);
    lines.push(
      table(
        me.map((s) => [s.command, s.medianMs, s.minMs, s.peakRssMb, `${s.ratio}x`]),
        ["command", "median ms", "min ms", "peak RSS MB", "vs raw undici"],
      ),
    );
  } else {
    lines.push(`me: not measured (${meError}).`);
  }
  return {
    results: {
      startup: startup.map(({ ratio, ...s }) => ({ ...s, ratioToBareNode: ratio })),
      me: me ? me.map(({ ratio, ...s }) => ({ ...s, ratioToRawUndici: ratio })) : { error: meError },
    },
    text: lines.join("\n"),
  };
}

// `node bench/startup.mjs`: this part alone.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { fileURLToPath } = await import("node:url");
  const root = fileURLToPath(new URL("..", import.meta.url));
  const tmp = mkdtempSync(join(tmpdir(), "partner-cli-bench-"));
  try {
    const r = await startupBench({
      root,
      bin: process.env.BENCH_CLI ?? join(root, "bin", "partner-cli.js"),
      tmp,
      runs: Number(process.env.BENCH_STARTUP_RUNS ?? 15),
      meRuns: Number(process.env.BENCH_ME_RUNS ?? 15),
    });
    process.stdout.write(`${r.text}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
