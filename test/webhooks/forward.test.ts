// webhooks forward URL against a served sandbox and a local receiving app: each event forwarded once,
// in order, across restarts, signed with the session secret (verified by the Python and Node example
// handlers of docs/examples, independent implementations); a failing app sees the service's retries
// (scaled down, on the injected clock); usage errors change nothing; SIGTERM and Ctrl-C (tmux) stop
// with exit 130 and the cursor kept.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { RETRY_SCALE, webhooksForwardRun } from "../../src/commands/webhooks/forward.js";
import { exitCodeFor } from "../../src/main.js";
import { RETRY_WAITS_MS } from "../../src/spec/webhooks.js";
import { BIN } from "../helpers/cli.js";
import { dirFiles } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { hasTmux, shq, tmuxSession, tmuxSkipNote } from "../helpers/tmux.js";
import { until } from "../helpers/wait.js";
import { freePort, receiver } from "../sandbox/webhooks-receiver.js";

const s = useSandbox({ seed: "empty", resetEach: true });
const EXAMPLES = fileURLToPath(new URL("../../docs/examples/", import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

async function emit(n: number): Promise<string[]> {
  const me = await s.http("GET", "/me");
  const org = s.sb.sandbox.org(me.body.organization.id)!;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const ev = s.sb.sandbox.emit(org, "code.issued", {
      claimId: "6f1c2d8e-1111-4222-8333-944445555666",
      campaign: { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "S" },
      creator: { externalId: `c${i}`, name: "C" },
      issuedAt: s.sb.sandbox.clock.iso(),
    });
    ids.push(ev.id);
  }
  return ids;
}

/** An example handler of docs/examples, started with `secret`; its stdout lines as they come. */
async function handler(cmd: string[], secret: string, port: number) {
  const child = spawn(cmd[0]!, cmd.slice(1), {
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (c) => {
    out += c;
  });
  const url = await until(() => /listening on (\S+)/.exec(out)?.[1], 10_000, "the handler's URL");
  const verified = () => [...out.matchAll(/^verified code\.issued (\S+)$/gm)].map((m) => m[1]);
  return { url, verified, lines: () => out };
}

/** One in-process forward run, stopped by Ctrl-C once `done` holds. */
async function forwardUntil(
  o: Parameters<typeof webhooksForwardRun>[0],
  configDir: string,
  done: () => boolean | Promise<boolean>,
  clock = systemClock,
) {
  const ac = new AbortController();
  const { ctx, stdout, stderr } = s.context({ configDir, signal: ac.signal, clock, globals: { json: true } });
  const run = webhooksForwardRun({ interval: 20, ...o }, ctx).then(
    () => undefined,
    (err: unknown) => err,
  );
  await until(() => stderr().includes("Ready!"), 10_000, "Ready!");
  await until(done, 20_000, "the forward's work");
  ac.abort();
  const err = await run;
  await ctx.close();
  return { err, stdout: stdout(), stderr: stderr() };
}

const secretOf = (stderr: string) =>
  /Your webhook signing secret is (whsec_\S+) \(kept in ([^;)]+)/.exec(stderr)!;

describe("webhooks forward", () => {
  it("forwards each event once, in order, across restarts; Python and Node handlers verify the signatures", async () => {
    const dir = tempDir("pcli-fwd-");
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/webhooks`;
    const before = await emit(2);
    // First run: it prints the session secret (kept for this URL) and starts from now.
    const first = await forwardUntil({ url }, dir, () => true);
    expect(exitCodeFor(first.err)).toBe(130);
    const [, secret, path] = secretOf(first.stderr);
    expect(first.stderr).toContain("earlier events are not sent");
    expect(readFileSync(path!, "utf8")).toBe(`${secret}\n`);
    expect(statSync(path!).mode & 0o777).toBe(0o600);
    // The app, configured once with that secret, stays up while the forward restarts.
    const py = await handler(["python3", join(EXAMPLES, "webhook_handler.py")], secret!, port);
    const early = await emit(2);
    const a = await forwardUntil({ url }, dir, () => py.verified().length >= 2);
    expect(exitCodeFor(a.err)).toBe(130);
    expect(secretOf(a.stderr)[1]).toBe(secret);
    expect((a.err as Error).message).toMatch(
      /Stopped forwarding to .*: 2 events delivered, 0 failed; the cursor is saved after event/,
    );
    const later = await emit(3);
    const b = await forwardUntil({ url }, dir, () => py.verified().length >= 5);
    expect(exitCodeFor(b.err)).toBe(130);
    // A restart with nothing new sends nothing again.
    const c = await forwardUntil({ url }, dir, () => true);
    expect(c.stdout).toBe("");
    expect(py.verified()).toEqual([...early, ...later]);
    expect(py.lines()).not.toMatch(/duplicate|rejected/);
    // Every attempt was a --json line.
    expect(
      b.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(
      later.map((eventId) =>
        expect.objectContaining({
          eventId,
          type: "code.issued",
          attempt: 1,
          status: 200,
          outcome: "delivered",
        }),
      ),
    );
    // The Node handler, on another URL, with --secret-file (the format listen reads) and --since.
    const node = await handler(["node", join(EXAMPLES, "webhook-handler.mjs")], secret!, 0);
    const d = await forwardUntil(
      { url: node.url, since: 3_600_000, secretFile: path! },
      dir,
      () => node.verified().length >= 7,
    );
    expect(d.stderr).toContain(`Signing with the secret in ${path}`);
    expect(d.stderr).not.toContain(secret!);
    expect(node.verified()).toEqual([...before, ...early, ...later]);
  });

  it("a failing app sees the retries on the service's schedule, scaled down; after the seventh the forward moves on", async () => {
    const app = await receiver([{ status: 500 }, { status: 503 }]);
    const waits: number[] = [];
    // Retry waits are recorded and skipped; the short poll interval runs on real time.
    const clock = {
      now: () => new Date(),
      sleep: (ms: number, signal?: AbortSignal) => {
        if (ms < 1000) return systemClock.sleep(ms, signal);
        waits.push(ms);
        return Promise.resolve();
      },
    };
    const dir = tempDir("pcli-fwd-retry-");
    const [a] = await emit(1);
    const r1 = await forwardUntil(
      { url: app.url, since: 3_600_000 },
      dir,
      () => app.requests.length >= 3,
      clock,
    );
    const lines = r1.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.eventId, l.attempt, l.status, l.outcome])).toEqual([
      [a, 1, 500, "retrying"],
      [a, 2, 503, "retrying"],
      [a, 3, 200, "delivered"],
    ]);
    expect(waits).toEqual(RETRY_WAITS_MS.slice(0, 2).map((w) => w / RETRY_SCALE));
    expect(lines[0]).toMatchObject({ category: "rejected", retryInMs: 1000 });
    // An app that keeps failing: seven attempts, then the next event.
    app.fallback = { status: 500 };
    waits.length = 0;
    const [b, c] = await emit(2);
    const r2 = await forwardUntil({ url: app.url }, dir, () => app.requests.length >= 3 + 7 + 7, clock);
    const l2 = r2.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(l2.slice(0, 7).map((l) => [l.eventId, l.attempt, l.outcome])).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => [b, n, n === 7 ? "failed" : "retrying"]),
    );
    expect(waits.slice(0, 6)).toEqual(RETRY_WAITS_MS.map((w) => w / RETRY_SCALE));
    expect(l2[7]).toMatchObject({ eventId: c, attempt: 1 });
    expect(app.requests.every((q) => q.headers["user-agent"] === "Service-Webhooks/1")).toBe(true);
    expect(app.requests.at(-1)!.headers["service-event-id"]).toBe(c);
    await app.close();
  });

  it("a second forward to the same URL while one runs: exit 9", async () => {
    const app = await receiver();
    const dir = tempDir("pcli-fwd-lock-");
    const r = await forwardUntil({ url: app.url }, dir, async () => {
      const second = await s.run(["webhooks", "forward", app.url], { configDir: dir });
      expect(second.exitCode).toBe(9);
      expect(second.stderr).toContain(`The forward to ${app.url}`);
      return true;
    });
    expect(exitCodeFor(r.err)).toBe(130);
    await app.close();
  });

  it("usage errors: exit 2, nothing stored, nothing sent", async () => {
    const dir = tempDir("pcli-fwd-bad-");
    const cases: [string[], RegExp][] = [
      [["ftp://x/"], /http or https URL/],
      [["http://127.0.0.1:9/", "--since", "1h", "--from-now"], /--since or --from-now, not both/],
      [["http://127.0.0.1:9/", "--events", "bogus.type"], /not a supported type/],
      [["http://127.0.0.1:9/", "--secret-file", join(dir, "absent")], /Cannot read the secret file/],
    ];
    for (const [args, re] of cases) {
      const r = await s.run(["webhooks", "forward", ...args], { configDir: dir });
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(re);
    }
    expect(dirFiles(dir)).toEqual({});
  });

  it("SIGTERM: exit 130, the cursor kept (the built CLI)", async () => {
    const app = await receiver();
    const env: NodeJS.ProcessEnv = { ...s.env(), NO_COLOR: "1" };
    const child = execa("node", [BIN, "webhooks", "forward", app.url, "--interval", "50ms"], {
      env,
      reject: false,
      stdin: "ignore",
    });
    let err = "";
    child.stderr!.on("data", (c) => {
      err += c;
    });
    await until(() => err.includes("Ready!"), 20_000, "Ready!");
    const [id] = await emit(1);
    await app.waitFor(1, 10_000);
    await until(() => existsSync(join(env.PARTNER_CLI_CONFIG_DIR!, "cursors")), 5_000, "the cursor");
    child.kill("SIGTERM");
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(String(r.stdout)).toContain(`code.issued  ${id}  attempt 1  HTTP 200`);
    expect(String(r.stderr)).toContain(`the cursor is saved after event ${id}`);
    await app.close();
  });

  it.skipIf(!hasTmux)(`at a terminal: the secret, the live lines, Ctrl-C${tmuxSkipNote}`, async () => {
    const app = await receiver();
    const env = s.env();
    const vars = Object.entries(env)
      .map(([k, v]) => `${k}=${shq(v!)}`)
      .join(" ");
    const t = tmuxSession(
      `${vars} node ${shq(BIN)} webhooks forward ${app.url}; echo EXIT=$?; sleep 600`,
      "fwd",
    );
    try {
      await t.waitFor(/Your webhook signing secret is whsec_\S+/, "the secret");
      const [id] = await emit(1);
      await t.waitFor(new RegExp(`code\\.issued  ${id}  attempt 1  HTTP 200`), "the live line");
      t.type("\x03");
      const screen = await t.waitFor(/EXIT=\d+/, "the exit");
      expect(screen).toContain("EXIT=130");
      expect(screen).toContain(`the cursor is saved after event ${id}`);
    } finally {
      t.kill();
      await app.close();
    }
  });
});
