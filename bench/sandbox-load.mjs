// A served sandbox under load: `partner-cli sandbox start --port 0 --json` (in memory, then with
// --data-dir: every answered write committed to disk, WAL, synchronous=FULL) serving BENCH_LOAD_CLIENTS
// (100) concurrent undici clients for BENCH_LOAD_SEC (60) seconds each, mixing reads and writes the way
// an operator's pipeline does:
//
//   30%  GET /creators?page=N&pageSize=100       (a random page of the roster)
//   20%  PUT /creators/{externalId}              (a rename of an existing creator)
//   10%  POST /creators/batch                    (10 rows: 5 updates, 5 new creators)
//   20%  GET /redemptions?limit=100[&after=...]  (each client walks the feed with its cursor)
//   20%  GET /events?limit=100[&after=...]       (each client walks the event log; writes add to it)
//
// Before the clock starts the sandbox gets 5,000 creators, an active campaign with the roster linked
// and 20,000 simulated redemptions (with their events). An error is any answer that is not 2xx (no 4xx
// is expected of this mix) or a failed connection. Latency is per request (p50/p99); the server's RSS
// is sampled every second from /proc/<pid>/status (VmRSS): first (after the fill), last, max, and the
// max over the first and last thirds of the run (flat memory keeps them close). The clients connect
// first (each its own keep-alive connection, GET /me; "connect ms" is how long all took), then the
// clock starts for all of them at once.
//
// Used by bench/run.mjs (BENCH_ONLY=load); `node bench/sandbox-load.mjs` runs it alone (after `npm run
// build`). Knobs: BENCH_LOAD_SEC (60; 0 skips), BENCH_LOAD_CLIENTS (100), BENCH_LOAD_MODES (memory,file).
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { api, log, round, servedSandbox, table } from "./lib.mjs";
import { rssSampler } from "./simulate-1m.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const { Client } = createRequire(join(ROOT, "package.json"))("undici");
const ROSTER = 5000;
const day = (d) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
const idOf = (i) => `load-${String(i).padStart(6, "0")}`;

/** 5,000 creators, a campaign with them linked and 20,000 redemptions with their events. */
async function fill(sb) {
  for (let i = 0; i < ROSTER; i += 1000) {
    const creators = [];
    for (let j = i; j < i + 1000; j++) creators.push({ externalId: idOf(j), name: `Load Creator ${j}` });
    await api(sb, "POST", "/creators/batch", { creators });
  }
  const c = await api(sb, "POST", "/campaigns", {
    name: "Load",
    baseGs1: "0012345000028",
    dates: { from: day(-2), through: day(60) },
    codeLimit: 1_000_000,
    commission: { rate: 0.1, estimatedUnitSalePrice: 3.49 },
    externalReference: "load",
  });
  await api(sb, "POST", `/campaigns/${c.id}/status`, { status: "active" });
  const { job } = await api(sb, "POST", `/campaigns/${c.id}/assignments`, { scope: "roster" });
  for (;;) {
    const j = await api(sb, "GET", `/campaigns/${c.id}/assignments/${job.id}`);
    if (j.status === "completed") break;
    if (j.status === "failed") throw new Error(`assignment job failed: ${j.lastError}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await api(
    sb,
    "POST",
    "/simulate",
    { campaign: c.id, claims: 20_000, redemptions: 20_000, seed: 3 },
    "/_sandbox",
  );
}

/** One operation of the mix: [name, method, path, body]. `state` is the client's own (cursors, counter). */
function pick(state, r) {
  const n = Math.floor(Math.random() * ROSTER);
  if (r < 0.3)
    return ["list creators", "GET", `/creators?page=${Math.floor(Math.random() * 50)}&pageSize=100`];
  if (r < 0.5)
    return ["put creator", "PUT", `/creators/${idOf(n)}`, { name: `Load Creator ${n} v${state.n++}` }];
  if (r < 0.6) {
    const creators = [];
    for (let k = 0; k < 5; k++)
      creators.push({ externalId: idOf((n + k) % ROSTER), name: `Batch ${state.n}` });
    for (let k = 0; k < 5; k++)
      creators.push({ externalId: `new-${state.c}-${state.n}-${k}`, name: `New ${state.c} ${state.n} ${k}` });
    state.n++;
    return ["batch 10", "POST", "/creators/batch", { creators }];
  }
  const feed = r < 0.8 ? "redemptions" : "events";
  const after = state[feed] ? `&after=${encodeURIComponent(state[feed])}` : "";
  return [`${feed} feed`, "GET", `/${feed}?limit=100${after}`, undefined, feed];
}

/** One client: its own keep-alive connection (as 100 separate processes would have), opened with GET /me. */
async function connect(sb) {
  const agent = new Client(new URL(sb.baseUrl).origin, { keepAliveTimeout: 30_000 });
  const res = await agent.request({
    path: "/api/partner/v1/me",
    method: "GET",
    headers: { authorization: `Bearer ${sb.writeKey}` },
  });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET /me answered ${res.statusCode}`);
  return agent;
}

async function loop(c, sb, agent, deadline, out) {
  const origin = new URL(sb.baseUrl).origin;
  const state = { c, n: 0, redemptions: null, events: null };
  while (Date.now() < deadline) {
    const [name, method, path, body, feed] = pick(state, Math.random());
    const t0 = performance.now();
    let status = 0;
    let text = "";
    try {
      const res = await agent.request({
        origin,
        path: `/api/partner/v1${path}`,
        method,
        headers: { authorization: `Bearer ${sb.writeKey}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (e) {
      text = e.message;
    }
    const ms = performance.now() - t0;
    out.latencies.push(ms);
    out.ops[name] ??= { count: 0, errors: 0, maxMs: 0 };
    const op = out.ops[name];
    op.count++;
    op.maxMs = Math.max(op.maxMs, Math.round(ms));
    if (status < 200 || status >= 300) {
      op.errors++;
      out.errors++;
      if (out.firstErrors.length < 5)
        out.firstErrors.push(`${method} ${path}: ${status} ${text.slice(0, 200)}`);
    } else if (feed) {
      // Follow the cursor; at the end of the feed start again from the beginning.
      state[feed] = JSON.parse(text).nextCursor ?? null;
    }
  }
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function oneRun({ bin, tmp, mode, seconds, clients }) {
  const args = mode === "file" ? ["--data-dir", mkdtempSync(join(tmp, "load-"))] : [];
  const sb = await servedSandbox(bin, args, { ...process.env, NO_COLOR: "1" });
  try {
    await fill(sb);
    const rss = rssSampler(sb.pid, 1000);
    const out = { latencies: [], ops: {}, errors: 0, firstErrors: [] };
    // Every client connects first (untimed); then the clock starts for all of them at once.
    const c0 = Date.now();
    const agents = await Promise.all(Array.from({ length: clients }, () => connect(sb)));
    const connectMs = Date.now() - c0;
    const t0 = Date.now();
    await Promise.all(agents.map((agent, c) => loop(c, sb, agent, t0 + seconds * 1000, out)));
    const wall = (Date.now() - t0) / 1000;
    await Promise.all(agents.map((a) => a.close()));
    const mem = rss.stop();
    const third = Math.max(1, Math.floor(rss.samples.length / 3));
    const lat = Float64Array.from(out.latencies).sort();
    return {
      mode,
      connectMs,
      seconds: round(wall, 1),
      clients,
      requests: lat.length,
      requestsPerSec: Math.round(lat.length / wall),
      p50Ms: round(pct(lat, 50), 1),
      p99Ms: round(pct(lat, 99), 1),
      errors: out.errors,
      firstErrors: out.firstErrors,
      ops: out.ops,
      rssMb: {
        ...mem,
        maxFirstThird: Math.max(...rss.samples.slice(0, third)),
        maxLastThird: Math.max(...rss.samples.slice(-third)),
      },
    };
  } finally {
    await sb.stop();
  }
}

export async function sandboxLoadBench({
  bin,
  tmp,
  seconds = 60,
  clients = 100,
  modes = ["memory", "file"],
}) {
  const runs = [];
  for (const mode of modes) {
    log(`  sandbox under load: ${clients} clients for ${seconds} s, ${mode}`);
    runs.push(await oneRun({ bin, tmp, mode, seconds, clients }));
  }
  const rows = runs.map((r) => [
    r.mode === "file" ? "--data-dir (file)" : "in memory",
    r.requests.toLocaleString("en-US"),
    r.requestsPerSec,
    r.p50Ms,
    r.p99Ms,
    r.errors,
    r.rssMb.first,
    r.rssMb.last,
    r.rssMb.max,
    `${r.rssMb.maxFirstThird} / ${r.rssMb.maxLastThird}`,
    r.connectMs,
  ]);
  const text = [
    `Sandbox under load: ${clients} concurrent undici clients for ${seconds} s against partner-cli sandbox start (30% creator pages, 20% PUT creator, 10% batch of 10, 20% redemptions feed, 20% events feed; 5,000 creators and 20,000 redemptions before)`,
    table(rows, [
      "store",
      "requests",
      "req/s",
      "p50 ms",
      "p99 ms",
      "errors",
      "RSS first",
      "RSS last",
      "RSS max",
      "max 1st/last third",
      "connect ms",
    ]),
    ...runs.map(
      (r) =>
        `  ${r.mode}: ${Object.entries(r.ops)
          .map(([k, v]) => `${k} ${v.count} (max ${v.maxMs} ms)`)
          .join(", ")}`,
    ),
    ...runs.flatMap((r) => r.firstErrors.map((e) => `  ${r.mode}: ${e}`)),
  ].join("\n");
  return { text, results: { seconds, clients, runs } };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const tmp = mkdtempSync(join(tmpdir(), "partner-cli-bench-load-"));
  try {
    const r = await sandboxLoadBench({
      bin: join(ROOT, "bin", "partner-cli.js"),
      tmp,
      seconds: Number(process.env.BENCH_LOAD_SEC ?? 60),
      clients: Number(process.env.BENCH_LOAD_CLIENTS ?? 100),
      modes: (process.env.BENCH_LOAD_MODES ?? "memory,file").split(",").filter(Boolean),
    });
    process.stdout.write(`${r.text}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
