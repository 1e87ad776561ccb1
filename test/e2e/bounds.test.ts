// The network bounds and the run lock, through the built CLI without a terminal, against real HTTP
// servers on 127.0.0.1 that misbehave on purpose (test/api/misbehave.ts) and the sandbox:
// - a trickling server ends with exit 7 within the retry deadline plus one request timeout, and an
//   export stuck on it releases its lock;
// - an oversize answer: a clear error (exit 4), one request, memory bounded;
// - a redirect on every method: exit 4, nothing printed on stdout, nothing claimed;
// - connection refused names the URL and where it came from, and the right thing to fix;
// - a base URL that is some other web server: exit 4 with that hint;
// - a run stopped with SIGSTOP keeps its lock however old the lock files look.
import { existsSync, readFileSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort, type Misbehaving, misbehaving, stream, trickle } from "../api/misbehave.js";
import { lockBeside } from "../../src/io/file-lock.js";
import { feedIds } from "../export/arrange.js";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { BIN, cli } from "../helpers/cli.js";
import { runIn } from "../helpers/run.js";
import { http, tempDir } from "../helpers/sandbox.js";
import { useSandbox, withSandbox } from "../helpers/harness.js";
import { until } from "../helpers/wait.js";

const NO_STACK = /ECOMPROMISED|\n\s+at .+:\d+:\d+|Unexpected error/;

const box = useSandbox();
const servers: Misbehaving[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function serve(...args: Parameters<typeof misbehaving>): Promise<Misbehaving> {
  const s = await misbehaving(...args);
  servers.push(s);
  return s;
}

/** Credentials for `base` (the sandbox's key), a private config dir, fast retries. */
function envFor(base: string, extra: Record<string, string> = {}, configDir = tempDir()) {
  return {
    PARTNER_CLI_CONFIG_DIR: configDir,
    PARTNER_BASE_URL: base,
    PARTNER_API_KEY: box.writeKey,
    PARTNER_RETRY_BASE_MS: "20",
    ...extra,
  };
}

describe("a server that sends headers, then one byte per second", () => {
  it("`me` ends with exit 7 within the retry deadline plus one request timeout", {
    timeout: 30_000,
  }, async () => {
    const s = await serve((_req, res) => {
      trickle(res);
      return undefined;
    });
    const r = await cli(["me"], {
      env: envFor(s.url, { PARTNER_REQUEST_TIMEOUT_MS: "1500", PARTNER_RETRY_DEADLINE_MS: "4000" }),
      timeout: 20_000,
    });
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      `Could not reach ${s.url} (PARTNER_BASE_URL) for GET /me: no complete answer within 1.5 s`,
    );
    expect(r.stderr).toMatch(/PARTNER_REQUEST_TIMEOUT_MS/);
    // Retried (a read), but not past the deadline: attempts of 1.5 s within 4 s are two or three (a
    // second starts even when a loaded machine ends the first late), never the four a longer run would make.
    expect(s.count("GET", "/me")).toBeGreaterThanOrEqual(2);
    expect(s.count("GET", "/me")).toBeLessThanOrEqual(3);
  });

  it("an export stuck on it ends with exit 7 and releases its lock; the next run exports everything", {
    timeout: 60_000,
  }, async () => {
    const campaign = (await makeCampaign(box.sb, FEED)).id;
    await simulate(box.sb, { campaign, claims: 300, redemptions: 250, seed: 3 });
    let trickling = true;
    const s = await serve((req, res) => {
      if (trickling && req.method === "GET" && req.url?.includes("/redemptions")) {
        trickle(res);
        return undefined;
      }
      return "forward";
    }, box.url);
    const configDir = tempDir();
    const out = join(tempDir(), "redemptions.csv");
    const env = envFor(
      s.url,
      { PARTNER_REQUEST_TIMEOUT_MS: "1500", PARTNER_RETRY_DEADLINE_MS: "2000" },
      configDir,
    );
    const stuck = await cli(["redemptions", "export", "--out", out], { env, timeout: 30_000 });
    expect(stuck.exitCode, stuck.stderr).toBe(7);
    expect(stuck.stderr).toMatch(/GET \/redemptions: no complete answer within 1\.5 s/);
    expect(stuck.stderr).not.toMatch(NO_STACK);
    // The lock is gone with the run: no lock file is left beside the output.
    expect(existsSync(lockBeside(out))).toBe(false);

    trickling = false;
    const next = await cli(["redemptions", "export", "--out", out], { env });
    expect(next.exitCode, next.stderr).toBe(0);
    const ids = (parse(readFileSync(out), { columns: true }) as { id: string }[]).map((r) => r.id);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(new Set(await feedIds(box.sb)));
  });
});

/** Runs the CLI and follows its peak resident memory (VmHWM) until it exits. */
async function withPeakRss(args: string[], env: Record<string, string>) {
  const child = execa("node", [BIN, ...args], {
    env: { NO_COLOR: "1", ...env },
    reject: false,
    stdin: "ignore",
    timeout: 60_000,
  });
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
      if (m) peakKb = Math.max(peakKb, Number(m[1]));
    } catch {
      // exited
    }
  }, 10);
  const r = await child;
  clearInterval(poll);
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr), peakMb: peakKb / 1024 };
}

describe("an answer larger than the cap", () => {
  const CAP = String(8 * 1024 * 1024);

  it.runIf(existsSync("/proc/self/status"))(
    "500 MB streamed: a clear error (exit 4), one request, memory far below the answer's size",
    { timeout: 60_000 },
    async () => {
      let written = 0;
      const s = await serve(async (_req, res) => {
        written = await stream(res, 500 * 1024 * 1024);
      });
      const r = await withPeakRss(["me"], envFor(s.url, { PARTNER_MAX_RESPONSE_BYTES: CAP }));
      expect(r.exitCode, r.stderr).toBe(4);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(
        `The answer to GET /me from ${s.url} (PARTNER_BASE_URL) is larger than the 8 MiB limit (stopped reading there); it was not retried.`,
      );
      expect(r.stderr).toMatch(/raise PARTNER_MAX_RESPONSE_BYTES \(now 8388608 bytes\)/);
      expect(r.stderr).not.toMatch(NO_STACK);
      expect(s.hits).toHaveLength(1);
      // The reader stopped near the cap (socket buffers aside), far from the 500 MB on offer.
      expect(written).toBeLessThan(100 * 1024 * 1024);
      // A node process running the CLI stays well under 200 MB here; the answer was 500 MB.
      expect(r.peakMb).toBeGreaterThan(0);
      expect(r.peakMb).toBeLessThan(200);
    },
  );

  it("a Content-Length above the cap is refused before reading the body", async () => {
    const s = await serve(async (_req, res) => {
      await stream(res, 50 * 1024 * 1024, true);
    });
    const r = await cli(["me"], { env: envFor(s.url, { PARTNER_MAX_RESPONSE_BYTES: CAP }) });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain("is larger than the 8 MiB limit (announced 50 MiB); it was not retried.");
    expect(s.hits).toHaveLength(1);
  });

  it("an error answer is capped too, and a bad PARTNER_MAX_RESPONSE_BYTES is a usage error", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("x".repeat(2000));
      return undefined;
    });
    const r = await cli(["me"], { env: envFor(s.url, { PARTNER_MAX_RESPONSE_BYTES: "1000" }) });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/larger than the 1000 bytes limit/);
    expect(s.hits).toHaveLength(1);
    const bad = await cli(["me"], { env: envFor(s.url, { PARTNER_MAX_RESPONSE_BYTES: "64MB" }) });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(
      /PARTNER_MAX_RESPONSE_BYTES must be a whole number of bytes above 0, not "64MB"/,
    );
    const badT = await cli(["me"], { env: envFor(s.url, { PARTNER_REQUEST_TIMEOUT_MS: "0" }) });
    expect(badT.exitCode).toBe(2);
    expect(badT.stderr).toMatch(/PARTNER_REQUEST_TIMEOUT_MS must be a whole number of milliseconds/);
  });
});

describe("a redirect is never success", () => {
  let webhookId: string;
  let status0: string;
  beforeAll(async () => {
    const reg = await box.http("POST", "/webhooks", {
      body: { url: "https://hooks.example.com/redirect-test", eventTypes: ["code.issued"] },
    });
    expect(reg.status).toBe(201);
    webhookId = reg.body.webhook.id;
    status0 = reg.body.webhook.status;
  });

  const commands = (): Record<string, string[]> => ({
    GET: ["me"],
    POST: ["webhooks", "test", webhookId, "--type", "code.issued"],
    PUT: ["roster", "set", "cr-redirect", "--name", "Redirected"],
    PATCH: ["webhooks", "update", webhookId, "--disable"],
    DELETE: ["webhooks", "delete", webhookId, "--yes"],
  });

  /** Redirects requests with `method` to partner.example.com; forwards the rest to the sandbox. */
  const redirecting = (method: string, status: number) =>
    serve((req, res) => {
      if (req.method !== method) return "forward";
      res.writeHead(status, { location: `https://partner.example.com${req.url}` });
      res.end();
      return undefined;
    }, box.url);

  for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
    it(`${method}: 301, 302, 307 and 308 each end with exit 4, nothing on stdout, nothing claimed`, async () => {
      for (const status of [301, 302, 307, 308]) {
        const s = await redirecting(method, status);
        const argv = commands()[method]!;
        const r = await runIn(argv, { env: envFor(s.url) });
        expect(r.exitCode, r.stderr).toBe(4);
        expect(r.stdout).toBe("");
        expect(r.stderr).toContain(
          `The service answered ${status} (redirect to https://partner.example.com/`,
        );
        expect(r.stderr).toMatch(
          /; nothing was followed\. The base URL http:\/\/127\.0\.0\.1:\d+ \(from PARTNER_BASE_URL\) is probably wrong/,
        );
        expect(r.stderr).toContain(
          "Set PARTNER_BASE_URL to the right address (the part before /api/partner/v1) where this command runs",
        );
        expect(r.stderr).toContain(
          "The redirect points to https://partner.example.com: use that only if it is your Partner API's address.",
        );
        expect(r.stderr).not.toMatch(/--base-url|Deleted|Updated|Sent|Saved|Created/);
        expect(s.count(method, "/api/partner/v1/")).toBe(1); // never retried
      }
      // The sandbox saw none of the redirected writes.
      const wh = await box.http("GET", `/webhooks/${webhookId}`);
      expect(wh.status).toBe(200);
      expect(wh.body.webhook.status).toBe(status0);
      expect((await box.http("GET", "/creators/cr-redirect")).status).toBe(404);
    });
  }

  it('webhooks delete through the built CLI: exit 4, no "Deleted", the webhook still exists', async () => {
    const s = await redirecting("DELETE", 301);
    const r = await cli(["webhooks", "delete", webhookId, "--yes"], { env: envFor(s.url) });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stdout).toBe("");
    expect(r.stderr).not.toMatch(/Deleted/);
    expect(r.stderr).toContain(
      `The service answered 301 (redirect to https://partner.example.com/api/partner/v1/webhooks/${webhookId}) to DELETE /webhooks/${webhookId}; nothing was followed.`,
    );
    expect((await box.http("GET", `/webhooks/${webhookId}`)).status).toBe(200);
  });
});

describe("connection refused names the URL, where it came from, and what to fix", () => {
  const fast = { PARTNER_RETRY_DEADLINE_MS: "300", PARTNER_RETRY_BASE_MS: "20" };

  it("from PARTNER_BASE_URL (cron): the hint names PARTNER_BASE_URL, never --base-url", async () => {
    const port = await closedPort();
    const r = await cli(["me"], { env: envFor(`http://127.0.0.1:${port}`, fast) });
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stderr).toContain(
      `Could not reach http://127.0.0.1:${port} (PARTNER_BASE_URL) for GET /me: connection refused (ECONNREFUSED)`,
    );
    expect(r.stderr).toMatch(/If it is wrong: set PARTNER_BASE_URL to the right address/);
    expect(r.stderr).not.toMatch(/--base-url/);
  });

  it("from --base-url: the hint names --base-url", async () => {
    const port = await closedPort();
    const env = { ...envFor("http://unused.invalid", fast) } as Record<string, string>;
    delete env.PARTNER_BASE_URL;
    const r = await cli(["me", "--base-url", `http://127.0.0.1:${port}`], { env });
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stderr).toContain(
      `Could not reach http://127.0.0.1:${port} (--base-url) for GET /me: connection refused (ECONNREFUSED)`,
    );
    expect(r.stderr).toMatch(/If it is wrong: pass the right --base-url/);
    expect(r.stderr).not.toMatch(/PARTNER_BASE_URL/);
  });

  it("from a profile: the hint is the login command for that profile", async () => {
    const configDir = tempDir();
    // A sandbox that is gone once the profile is saved.
    const gone = await withSandbox({}, async (f) => {
      const login = await cli(["login", "--profile", "prod", "--base-url", f.url, "--api-key-stdin"], {
        env: { PARTNER_CLI_CONFIG_DIR: configDir },
        input: `${f.writeKey}\n`,
      });
      expect(login.exitCode, login.stderr).toBe(0);
      return { url: f.url, writeKey: f.writeKey };
    });
    const r = await cli(["me"], { env: { PARTNER_CLI_CONFIG_DIR: configDir, ...fast } });
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stderr).toContain(
      `Could not reach ${gone.url} (profile "prod") for GET /me: connection refused (ECONNREFUSED)`,
    );
    expect(r.stderr).toContain("partner-cli login --profile prod --base-url URL");
    expect(r.stderr).not.toMatch(/PARTNER_BASE_URL|right --base-url/);
    expect(r.stderr).not.toContain(gone.writeKey);
  });
});

describe("a base URL that is some other web server", () => {
  const other = (status: number, body: string, type = "text/html") =>
    serve((_req, res) => {
      res.writeHead(status, { "content-type": type });
      res.end(body);
      return undefined;
    });

  it.each([
    [
      200,
      "<!doctype html><html><body>Welcome to nginx!</body></html>",
      "got 200 with an HTML page (text/html)",
    ],
    [404, "<html><body>Not Found</body></html>", "got 404 with an HTML page (text/html)"],
    [404, "", "got 404 without the API's error body"],
    [405, "Method Not Allowed", "got 405 with a body that is not the API's JSON (text/plain)", "text/plain"],
    [401, "<html>Sign in</html>", "got 401 with an HTML page"],
  ] as const)(
    "%i %j on GET /me: exit 4 with the hint, not exit 1",
    async (status, body, got, type?: string) => {
      const s = await other(status, body, type);
      const r = await cli(["me"], { env: envFor(s.url) });
      expect(r.exitCode, r.stderr).toBe(4);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(
        `${s.url} (PARTNER_BASE_URL) does not answer like the Partner API: GET /me ${got}`,
      );
      expect(r.stderr).toMatch(/Set PARTNER_BASE_URL to the right address/);
      expect(r.stderr).not.toMatch(/bug in partner-cli|report it/);
      expect(s.hits).toHaveLength(1);
    },
  );

  it("a JSON 404 that is not the API's error shape is not the API either", async () => {
    const s = await other(404, JSON.stringify({ message: "no route" }), "application/json");
    const r = await cli(["me"], { env: envFor(s.url) });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/does not answer like the Partner API: GET \/me got 404/);
  });

  it("a 404 with the API's error body stays exit 5 (redemptions get nosuch)", async () => {
    const r = await cli(["redemptions", "get", "nosuch"], { env: envFor(box.url) });
    expect(r.exitCode, r.stderr).toBe(5);
    expect(r.stderr).not.toMatch(/does not answer like the Partner API/);
  });

  it("a proxy's 502 page without an API body stays temporary: retried, then exit 7", async () => {
    const s = await other(502, "<html><h1>502 Bad Gateway</h1></html>");
    const r = await cli(["me"], { env: envFor(s.url, { PARTNER_RETRY_DEADLINE_MS: "3000" }) });
    expect(r.exitCode, r.stderr).toBe(7);
    expect(s.hits.length).toBeGreaterThan(1);
  });

  it("the key never appears in a message, even when the server echoes it", async () => {
    const s = await serve((req, res) => {
      res.writeHead(400, { "content-type": "text/plain" });
      res.end(`bad request from ${req.headers.authorization}`);
      return undefined;
    });
    const r = await cli(["me"], { env: envFor(s.url) });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/bad request from Bearer \*\*\*\*/);
    expect(r.stderr).not.toContain(box.writeKey);
  });
});

describe("a run stopped with SIGSTOP keeps its lock", () => {
  it("old-looking lock files do not matter: the second export exits 9; resumed, the first finishes; every row once", {
    timeout: 120_000,
  }, async () => {
    await withSandbox({}, async ({ sb: own }) => {
      const campaign = (await makeCampaign(own, FEED)).id;
      await simulate(own, { campaign, claims: 3200, redemptions: 3000, seed: 21 });
      await http(own, "POST", "/faults", { control: true, body: { latencyMs: 20 } });
      const configDir = tempDir();
      const out = join(tempDir(), "redemptions.csv");
      const env = {
        NO_COLOR: "1",
        PARTNER_CLI_CONFIG_DIR: configDir,
        PARTNER_BASE_URL: own.url,
        PARTNER_API_KEY: own.writeKey,
      };
      const args = ["redemptions", "export", "--out", out, "--page-size", "50"];
      const first = execa("node", [BIN, ...args], { env, reject: false, stdin: "ignore", timeout: 90_000 });
      const size = () => (existsSync(out) ? statSync(out).size : 0);
      await until(() => size() >= 20_000 || first.exitCode !== null, 20_000, "20 kB exported").catch(
        () => {},
      );
      expect(first.exitCode).toBeNull();
      first.kill("SIGSTOP");
      try {
        // Ten minutes old, as after a long stop: age must not matter.
        const past = new Date(Date.now() - 10 * 60_000);
        utimesSync(lockBeside(out), past, past);
        const second = await cli(args, { env });
        expect(second.exitCode, second.stderr).toBe(9);
        expect(second.stderr).toContain(`is in use by another partner-cli run (pid ${first.pid},`);
        expect(second.stderr).toMatch(/A stopped run \(Ctrl-Z, a closed laptop\) keeps its lock/);
        expect(second.stderr).not.toMatch(NO_STACK);
      } finally {
        first.kill("SIGCONT");
      }
      const done = await first;
      expect(done.exitCode, String(done.stderr)).toBe(0);
      expect(String(done.stderr)).not.toMatch(NO_STACK);
      const third = await cli(args, { env });
      expect(third.exitCode, third.stderr).toBe(0);
      expect(third.stderr).toMatch(/Exported 0 new redemptions/);
      expect(third.stderr).not.toMatch(/Removed \d+ bytes/);
      const ids = (parse(readFileSync(out), { columns: true }) as { id: string }[]).map((r) => r.id);
      expect(ids.length).toBe(3000);
      expect(new Set(ids).size).toBe(3000);
      expect(new Set(ids)).toEqual(new Set(await feedIds(own)));
    });
  });
});
