// The sandbox noun's run functions against a sandbox on port 0: start, reset, advance, simulate.
import { runIn } from "../helpers/run.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { sandboxAdvanceRun } from "../../src/commands/sandbox/advance.js";
import { sandboxResetRun } from "../../src/commands/sandbox/reset.js";
import { sandboxSimulateRun } from "../../src/commands/sandbox/simulate.js";
import { type StartedInfo, sandboxStartRun } from "../../src/commands/sandbox/start.js";
import { ApiError, DeclinedError, UsageError } from "../../src/errors.js";
import { run } from "../../src/main.js";
import { strictMe } from "../../src/spec/me.js";
import { http, type RunningSandbox, testContext } from "../helpers/sandbox.js";
import { makeCampaign, scriptedPrompter } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();

const creatorCount = async () => (await s.http("GET", "/creators")).body.totalCount as number;

describe("sandbox advance", () => {
  it("moves the clock and prints the new sandbox time (JSON)", async () => {
    const before = (await s.http("GET", "/clock", { control: true })).body;
    const { ctx, stdout } = s.context({ globals: { json: true } });
    await sandboxAdvanceRun({ durationMs: 7_200_000 }, ctx);
    await ctx.close();
    const out = JSON.parse(stdout());
    expect(out.offsetMs - before.offsetMs).toBe(7_200_000);
    const after = (await s.http("GET", "/clock", { control: true })).body;
    expect(Date.parse(out.now)).toBeGreaterThanOrEqual(Date.parse(before.now) + 7_200_000);
    expect(Date.parse(out.now)).toBeLessThanOrEqual(Date.parse(after.now));
  });
  it("prints now/offsetMs as TSV when piped", async () => {
    const { ctx, stdout } = s.context();
    await sandboxAdvanceRun({ durationMs: 0 }, ctx);
    await ctx.close();
    expect(stdout()).toMatch(/^now\t\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\noffsetMs\t\d+\n$/);
  });
  it("through the command line: durations are parsed, bad ones are usage errors", async () => {
    const env = s.env({}, { configDir: "/nonexistent-x" });
    const before = (await s.http("GET", "/clock", { control: true })).body.offsetMs;
    const ok = await runIn(["sandbox", "advance", "1h30m", "--json"], { env });
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout).offsetMs - before).toBe(5_400_000);
    const bad = await runIn(["sandbox", "advance", "soon"], { env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/duration/);
  });
  it("a negative duration is refused before any request", async () => {
    const { ctx } = s.context();
    await expect(sandboxAdvanceRun({ durationMs: -1 }, ctx)).rejects.toBeInstanceOf(UsageError);
    await ctx.close();
  });
});

describe("sandbox reset", () => {
  it("without a terminal and without --yes it is refused (nothing changes)", async () => {
    await s.http("PUT", "/creators/keep-me", { body: { name: "Keep" } });
    const { ctx } = s.context();
    await expect(sandboxResetRun({}, ctx)).rejects.toBeInstanceOf(DeclinedError);
    await ctx.close();
    expect((await s.http("GET", "/creators/keep-me")).status).toBe(200);
  });
  it("--no-input on a terminal is refused too", async () => {
    const { ctx } = s.context({
      tty: true,
      globals: { input: false },
      prompter: scriptedPrompter([{ kind: "confirm", answer: true }]),
    });
    await expect(sandboxResetRun({}, ctx)).rejects.toBeInstanceOf(DeclinedError);
    await ctx.close();
    expect((await s.http("GET", "/creators/keep-me")).status).toBe(200);
  });
  it("on a terminal it asks; no keeps the data", async () => {
    const prompter = scriptedPrompter([{ kind: "confirm", answer: false }]);
    const { ctx } = s.context({ tty: true, prompter });
    await expect(sandboxResetRun({}, ctx)).rejects.toBeInstanceOf(DeclinedError);
    await ctx.close();
    expect(prompter.asked[0]?.message).toContain(s.url);
    expect((await s.http("GET", "/creators/keep-me")).status).toBe(200);
  });
  it("on a terminal, yes resets", async () => {
    const { ctx, stdout } = s.context({
      tty: true,
      prompter: scriptedPrompter([{ kind: "confirm", answer: true }]),
    });
    await sandboxResetRun({ seed: "empty" }, ctx);
    await ctx.close();
    expect(stdout()).toMatch(/seed\s+empty/);
    expect(await creatorCount()).toBe(0);
  });
  it("--yes resets without asking; keys keep working", async () => {
    await s.http("PUT", "/creators/gone-soon", { body: { name: "Gone" } });
    const { ctx, stdout, stderr } = s.context({
      globals: { yes: true, json: true },
      prompter: scriptedPrompter([{ kind: "confirm", answer: false }]),
    });
    await sandboxResetRun({ seed: "demo" }, ctx);
    await ctx.close();
    expect(JSON.parse(stdout())).toEqual({ reset: true, seed: "demo" });
    expect(stderr()).toBe("");
    expect((await s.http("GET", "/creators/gone-soon")).status).toBe(404);
    expect(await creatorCount()).toBe(12);
    expect(strictMe.Me.parse((await s.http("GET", "/me")).body).key.canWrite).toBe(true);
  });
  it("works on the embedded sandbox (no profile, no key; chosen with --sandbox)", async () => {
    const { ctx, stdout, stderr } = testContext(null, { globals: { yes: true, sandbox: true } });
    await sandboxResetRun({ seed: "empty" }, ctx);
    await ctx.close();
    expect(stdout()).toMatch(/^reset\tyes\nseed\tempty\nbaseUrl\thttp:\/\/127\.0\.0\.1:\d+\n$/);
    expect(stderr()).toMatch(/embedded sandbox/);
  });
});

/** A real campaign object (from the sandbox) with this external reference. */
async function campaignJson(ref: string): Promise<Record<string, unknown>> {
  return makeCampaign(s, {
    name: `Campaign ${ref}`,
    baseGs1: SEED.offers.oatsUnknownSupply,
    dates: { from: 0, through: 10 },
    codeLimit: 10,
    commission: { rate: 0.1, estimatedUnitSalePrice: 1 },
    externalReference: ref,
  });
}

/** Answers the campaign lookup of --campaign with `campaign`; true when it did. */
function answerLookup(
  req: { method?: string; url?: string },
  res: import("node:http").ServerResponse,
  campaign: Record<string, unknown>,
): boolean {
  if (req.method !== "GET" || !req.url?.startsWith("/api/partner/v1/campaigns?")) return false;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ items: [campaign], page: 0, pageSize: 10, totalCount: 1 }));
  return true;
}

describe("sandbox simulate", () => {
  it("sends POST /_sandbox/simulate with the given counts and reports a 404 clearly", async () => {
    const campaign = await campaignJson("spring-oats");
    const seen: { method?: string; url?: string; auth?: string; body?: string } = {};
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        if (answerLookup(req, res, campaign)) return;
        Object.assign(seen, { method: req.method, url: req.url, auth: req.headers.authorization, body });
        res.writeHead(404, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ error: { code: "not_found", message: `No route for ${req.method} ${req.url}.` } }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const { ctx } = testContext(null, { env: { PARTNER_BASE_URL: url, PARTNER_API_KEY: "sk_test_key" } });
      const err = await sandboxSimulateRun(
        { campaign: "spring-oats", views: 10, claims: 4, redemptions: 2, testCodes: 0, seed: 7 },
        ctx,
      ).catch((e) => e);
      await ctx.close();
      expect(seen.method).toBe("POST");
      expect(seen.url).toBe("/_sandbox/simulate");
      expect(seen.auth).toBe("Bearer sk_test_key");
      // --campaign is resolved like every CAMPAIGN argument: the id is sent.
      expect(JSON.parse(seen.body!)).toEqual({
        campaign: campaign.id,
        views: 10,
        claims: 4,
        redemptions: 2,
        testCodes: 0,
        seed: 7,
      });
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(404);
      expect((err as ApiError).hint).toMatch(/not a partner-cli sandbox/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
  it("flags map to the body fields through the command line; a 404 exits 5 with the hint", async () => {
    const campaign = await campaignJson("ref 1");
    let body = "";
    const server = createServer((req, res) => {
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        if (answerLookup(req, res, campaign)) return;
        res.writeHead(404, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ error: { code: "not_found", message: "No route for POST /_sandbox/simulate." } }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let e = "";
    const err = new PassThrough();
    err.on("data", (c) => {
      e += c;
    });
    const streams = {
      stdout: new PassThrough(),
      stderr: err,
      stdin: new PassThrough(),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
    };
    try {
      const code = await run(
        [
          "sandbox",
          "simulate",
          "--campaign",
          "ref 1",
          "--views",
          "5",
          "--claims",
          "4",
          "--redemptions",
          "3",
          "--test-codes",
          "2",
          "--exclusions",
          "1",
          "--restorations",
          "0",
          "--seed",
          "42",
        ],
        {
          streams,
          env: { PARTNER_BASE_URL: url, PARTNER_API_KEY: "k", PARTNER_CLI_CONFIG_DIR: "/nonexistent-y" },
        },
      );
      expect(code).toBe(5);
      expect(JSON.parse(body)).toEqual({
        campaign: campaign.id,
        views: 5,
        claims: 4,
        redemptions: 3,
        testCodes: 2,
        exclusions: 1,
        restorations: 0,
        seed: 42,
      });
      expect(e).toMatch(/not_found/);
      expect(e).toMatch(/not a partner-cli sandbox/);
      expect(await run(["sandbox", "simulate", "--views", "-1"], { streams, env: {} })).toBe(2);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
  it("prints the route's answer when the sandbox has one", async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ views: 3, redemptions: 1 }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const { ctx, stdout } = testContext(null, { env: { PARTNER_BASE_URL: url, PARTNER_API_KEY: "k" } });
      await sandboxSimulateRun({ views: 3 }, ctx);
      await ctx.close();
      expect(stdout()).toBe("views\t3\nredemptions\t1\n");
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe("help", () => {
  it("every sandbox command has help with examples", async () => {
    for (const verb of ["start", "reset", "advance", "simulate"]) {
      let o = "";
      const out = new PassThrough();
      out.on("data", (c) => {
        o += c;
      });
      const streams = {
        stdout: out,
        stderr: new PassThrough(),
        stdin: new PassThrough(),
        stdoutIsTTY: false,
        stderrIsTTY: false,
        stdinIsTTY: false,
      };
      expect(await run(["sandbox", verb, "--help"], { streams, env: {} })).toBe(0);
      expect(o).toMatch(/Examples:\n\s+\$ partner-cli sandbox/);
    }
  });
});

describe("sandbox start (run function)", () => {
  async function startAndStop(
    opts: Parameters<typeof sandboxStartRun>[0],
    o: Parameters<typeof testContext>[1] = {},
  ) {
    const { ctx, stdout, stderr } = testContext(null, o);
    let info: StartedInfo | undefined;
    let me: unknown;
    await sandboxStartRun(
      {
        port: 0,
        ...opts,
        onListening: (i, stop) => {
          info = i;
          void http({ url: i.baseUrl, writeKey: i.writeKey } as RunningSandbox, "GET", "/me").then((r) => {
            me = r.body;
            stop();
          });
        },
      },
      ctx,
    );
    await ctx.close();
    return { info: info!, me, stdout: stdout(), stderr: stderr() };
  }
  it("--json prints exactly one line with baseUrl, writeKey, readOnlyKey, dataDir", async () => {
    const r = await startAndStop({}, { globals: { json: true } });
    const lines = r.stdout.split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe("");
    const parsed = JSON.parse(lines[0]!);
    expect(Object.keys(parsed)).toEqual(["baseUrl", "writeKey", "readOnlyKey", "dataDir"]);
    expect(parsed).toEqual(r.info);
    expect(parsed.dataDir).toBeNull();
    expect(parsed.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(strictMe.Me.parse(r.me).organization.name).toBe("Northwind Creators");
    expect(r.stderr).toMatch(/Ctrl-C/);
  });
  it("prints a human block on a terminal", async () => {
    const r = await startAndStop({}, { tty: true });
    expect(r.stdout).toContain(`Sandbox listening on ${r.info.baseUrl}`);
    expect(r.stdout).toContain(`export PARTNER_API_KEY=${r.info.writeKey}`);
    expect(r.stdout).toContain(r.info.readOnlyKey);
    expect(r.stdout).toMatch(/in memory/);
  });
  it("start-up faults and latency apply", async () => {
    const { ctx } = testContext(null, { globals: { json: true } });
    let cfg: any;
    await sandboxStartRun(
      {
        port: 0,
        latency: 5,
        faults: "502=0.5, 429:0.25",
        rateLimit: 9,
        onListening: (i, stop) => {
          void http({ url: i.baseUrl, writeKey: i.writeKey } as RunningSandbox, "GET", "/faults", {
            control: true,
          }).then((r) => {
            cfg = r.body;
            stop();
          });
        },
      },
      ctx,
    );
    await ctx.close();
    expect(cfg).toMatchObject({ latencyMs: 5, rateLimit: 9, rates: { "502": 0.5, "429": 0.25 } });
  });
  it("a bad --faults spec is a usage error", async () => {
    const { ctx } = testContext(null);
    await expect(sandboxStartRun({ port: 0, faults: "boom=1" }, ctx)).rejects.toBeInstanceOf(UsageError);
    await expect(sandboxStartRun({ port: 0, faults: "502=2" }, ctx)).rejects.toThrow(/between 0 and 1/);
    await ctx.close();
  });
  it("a data dir in use by another sandbox is refused (locked), and free again after stop", async () => {
    const { join } = await import("node:path");
    const { tempDir } = await import("../helpers/sandbox.js");
    const { startEmbeddedSandbox } = await import("../../src/sandbox/embedded.js");
    const { LockedError } = await import("../../src/errors.js");
    const dataDir = join(tempDir(), "data");
    const held = await startEmbeddedSandbox(dataDir);
    const { ctx } = testContext(null, { globals: { json: true } });
    await expect(sandboxStartRun({ port: 0, dataDir }, ctx)).rejects.toBeInstanceOf(LockedError);
    await held.close();
    const r = await startAndStop({ dataDir }, { globals: { json: true } });
    expect(r.info.dataDir).toBe(dataDir);
    // Released on stop: the embedded sandbox can take it again.
    const again = await startEmbeddedSandbox(dataDir);
    await again.close();
    await ctx.close();
  });
  it("a port in use is a usage error", async () => {
    const { ctx } = testContext(null);
    await expect(sandboxStartRun({ port: s.sb.port }, ctx)).rejects.toThrow(/already in use/);
    await ctx.close();
  });
});
