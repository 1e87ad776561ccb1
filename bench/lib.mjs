// Helpers shared by bench/startup.mjs and bench/sandbox-scale.mjs (plain JS on the built code).
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export const NODE = process.execPath;
export const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

export const log = (s) => process.stderr.write(`${s}\n`);
export const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
export const msSince = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function table(rows, headers) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) => String(c).padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/**
 * Runs `node ...args`: wall ms from spawn to exit, peak RSS in MB and CPU seconds (GNU time -v; without
 * it, /proc/<pid>/status VmHWM sampled every 20 ms and no CPU figure).
 */
export function measured(args, env, opts = {}) {
  return new Promise((resolve, reject) => {
    const cmd = TIME ? TIME : NODE;
    const argv = TIME ? ["-v", NODE, ...args] : args;
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, argv, { stdio: ["ignore", "pipe", "pipe"], env, cwd: opts.cwd });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    let hwmKb = 0;
    let poll;
    if (!TIME) {
      poll = setInterval(() => {
        try {
          const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
          if (m) hwmKb = Math.max(hwmKb, Number(m[1]));
        } catch {
          // gone
        }
      }, 20);
    }
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = msSince(t0);
      if (poll) clearInterval(poll);
      let rssKb = hwmKb;
      let cpuSec = null;
      if (TIME) {
        const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
        rssKb = m ? Number(m[1]) : 0;
        const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
        const sys = /System time \(seconds\): ([\d.]+)/.exec(stderr);
        if (user && sys) cpuSec = round(Number(user[1]) + Number(sys[1]), 2);
        stderr = stderr.replace(/\n?\tCommand being timed:[\s\S]*$/, "");
      }
      resolve({ code, ms, peakRssMb: round(rssKb / 1024), cpuSec, stdout, stderr });
    });
  });
}

/** Starts `partner-cli sandbox start ... --json` and waits for its JSON line. */
export function servedSandbox(bin, args, env) {
  return spawnSandbox([bin, "sandbox", "start", "--port", "0", "--json", ...args], env, {
    startMs: 120_000,
    stopMs: 60_000,
  });
}

/**
 * Runs `node ...nodeArgs`, a process that prints the sandbox's JSON line ({url, ...}) first, and waits
 * for that line; `stop()` ends it (SIGTERM, SIGKILL after `stopMs`).
 */
export async function spawnSandbox(nodeArgs, env, { startMs, stopMs }) {
  const child = spawn(NODE, nodeArgs, { stdio: ["ignore", "pipe", "pipe"], env });
  let out = "";
  let err = "";
  child.stderr.on("data", (c) => {
    err += c;
  });
  const info = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sandbox did not start in ${startMs / 1000} s: ${err}`)),
      startMs,
    );
    child.stdout.on("data", (c) => {
      out += c;
      const nl = out.indexOf("\n");
      if (nl >= 0) {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(out.slice(0, nl)));
        } catch {
          reject(new Error(`sandbox printed something else than JSON: ${out.slice(0, 200)}`));
        }
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited ${code}: ${err.trim()}`));
    });
  });
  child.removeAllListeners("exit");
  return {
    ...info,
    pid: child.pid,
    async stop() {
      const done = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), stopMs);
      await done;
      clearTimeout(t);
    },
  };
}

export async function api(sb, method, path, body, prefix = "/api/partner/v1") {
  const res = await fetch(sb.baseUrl + prefix + path, {
    method,
    headers: { authorization: `Bearer ${sb.writeKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * Fills a served sandbox for the feed benches: 50 creators, an active campaign (`bench-<label>`) with
 * the roster linked, and `rows` redemptions generated by `POST /_sandbox/simulate` (opts.events false: without their events). Returns how long
 * the generation took.
 */
export async function fillRedemptions(sb, rows, label, opts = {}) {
  const day = (d) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
  const creators = Array.from({ length: 50 }, (_, i) => ({
    externalId: `bench-${i}`,
    name: `Bench Creator ${i}`,
  }));
  await api(sb, "POST", "/creators/batch", { creators });
  const campaign = await api(sb, "POST", "/campaigns", {
    name: `Bench ${label}`,
    baseGs1: "0012345000028",
    dates: { from: day(-2), through: day(60) },
    codeLimit: Math.min(10_000_000, rows * 2),
    commission: { rate: 0.1, estimatedUnitSalePrice: 3.49 },
    externalReference: `bench-${label}`,
  });
  await api(sb, "POST", `/campaigns/${campaign.id}/status`, { status: "active" });
  const { job } = await api(sb, "POST", `/campaigns/${campaign.id}/assignments`, { scope: "roster" });
  for (;;) {
    const j = await api(sb, "GET", `/campaigns/${campaign.id}/assignments/${job.id}`);
    if (j.status === "completed" || j.status === "failed") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const t0 = process.hrtime.bigint();
  const body = { campaign: campaign.id, claims: rows, redemptions: rows, seed: 1 };
  if (opts.events === false) body.events = false;
  const made = await api(sb, "POST", "/simulate", body, "/_sandbox");
  if (made.redemptions !== rows) throw new Error(`simulate made ${made.redemptions} of ${rows}`);
  return { generateMs: msSince(t0), made };
}

/** Total bytes and newest modification time of the files under a directory. */
export function dirStat(dir) {
  let bytes = 0;
  let newestMs = 0;
  let files = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const s = statSync(p);
        bytes += s.size;
        newestMs = Math.max(newestMs, s.mtimeMs);
        files++;
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return { bytes, newestMs, files };
}
