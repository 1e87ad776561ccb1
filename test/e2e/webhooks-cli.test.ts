import { readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { beforeAll, describe, expect, test } from "vitest";
import { existingWebhooksArea, type OrgState } from "../../src/sandbox/store.js";
import { BIN, cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { freePort, opensslHmac, until } from "../sandbox/webhooks-receiver.js";
import { useSandbox } from "../helpers/harness.js";

const box = useSandbox({ seed: "empty" });
let org: OrgState;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  const me = await box.http("GET", "/me");
  org = box.sb.sandbox.org(me.body.organization.id)!;
  env = box.env({}, { configDir: tempDir() });
}, 120_000);

function listen(args: string[]): { proc: ResultPromise; first: Promise<string>; stderr: () => string } {
  const proc = execa("node", [BIN, "webhooks", "listen", "--json", ...args], {
    reject: false,
    env: { NO_COLOR: "1", ...env },
    stdin: "ignore",
  });
  let err = "";
  proc.stderr!.on("data", (c: Buffer) => {
    err += c;
  });
  const first = new Promise<string>((resolve, reject) => {
    let buf = "";
    proc.stdout!.on("data", (c: Buffer) => {
      buf += c;
      const nl = buf.indexOf("\n");
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    proc.once("exit", (code) => reject(new Error(`listen exited early (${code}): ${err}`)));
  });
  return { proc, first, stderr: () => err };
}

const idsIn = (path: string): string[] => {
  try {
    return readFileSync(path, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).id);
  } catch {
    return [];
  }
};

const data = () => ({
  claimId: "6f1c2d8e-1111-4222-8333-944445555666",
  campaign: { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "S" },
  creator: { externalId: "c1", name: "C" },
  issuedAt: box.sb.sandbox.clock.iso(),
});

describe("webhooks through the built bin", () => {
  test("create → listen → SIGKILL → restart → sync: each event once; SIGTERM exits 0", async () => {
    const dir = tempDir("pcli-e2e-wh-");
    const secretFile = join(dir, "webhook.secret");
    const out = join(dir, "events.ndjson");
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const created = await cli(
      ["webhooks", "create", "--url", url, "--events", "code.issued", "--secret-file", secretFile],
      { env },
    );
    expect(created.exitCode).toBe(0);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    const secret = readFileSync(secretFile, "utf8").trim();
    expect(created.stdout + created.stderr).not.toContain(secret);
    const epId = /webhook ([0-9a-f-]{36})/.exec(created.stderr)![1]!;

    let l = listen(["--secret-file", secretFile, "--port", String(port), "--out", out]);
    expect(JSON.parse(await l.first)).toEqual({ url, out });
    const ids = Array.from({ length: 200 }, () => box.sb.sandbox.emit(org, "code.issued", data()).id);
    const deliveries = () =>
      [...existingWebhooksArea(org)!.deliveries.values()].filter((d) => d.endpointId === epId);
    // Wait for 50 acknowledgements as the sandbox counts them (a line can be in the file before its
    // 200 reaches the sandbox: the receiver answers only after the fsync).
    await until(() => deliveries().filter((d) => d.deliveredAt).length >= 50, 30_000);
    l.proc.kill("SIGKILL");
    await l.proc;
    // Everything acknowledged before the kill is in the file.
    const inFile = new Set(idsIn(out));
    const acked = deliveries().filter((d) => d.deliveredAt);
    expect(acked.length).toBeGreaterThanOrEqual(50);
    for (const d of acked) expect(inFile.has(d.eventId)).toBe(true);
    expect(idsIn(out).length).toBe(inFile.size);

    // While the receiver is down, sync fills the gap from the log.
    const synced = await cli(["events", "sync", "--out", out, "--json"], { env });
    expect(synced.exitCode).toBe(0);
    expect(JSON.parse(synced.stdout).summary.appended).toBe(200 - inFile.size);
    expect(new Set(idsIn(out))).toEqual(new Set(ids));

    // Restarted: the pending retries are answered 200 as duplicates; nothing is appended twice.
    l = listen(["--secret-file", secretFile, "--port", String(port), "--out", out]);
    await l.first;
    for (let i = 0; i < 10 && deliveries().some((d) => d.nextAttemptAtMs !== null); i++) {
      await box.http("POST", "/advance", { control: true, body: { duration: "1h" } });
      await until(() => deliveries().every((d) => d.nextAttemptAtMs === null) || undefined, 3_000).catch(
        () => {},
      );
    }
    expect(deliveries().every((d) => d.deliveredAt !== null)).toBe(true);
    const stored = idsIn(out);
    expect(stored).toHaveLength(200);
    expect(new Set(stored)).toEqual(new Set(ids));
    expect(l.stderr()).toContain("duplicate");
    expect(l.stderr()).toContain("200 events already in");
    expect(l.stderr()).not.toContain(secret);

    l.proc.kill("SIGTERM");
    const r = await l.proc;
    expect(r.exitCode).toBe(0);
    expect(l.stderr()).toContain("Stopped; 200 events");
    await box.http("DELETE", `/webhooks/${epId}`);
  }, 120_000);

  test("verify: 0 valid, 3 invalid, 2 unreadable", async () => {
    const dir = tempDir("pcli-e2e-verify-");
    const secretFile = join(dir, "s");
    writeFileSync(secretFile, "whsec_e2e000000000000000000000000000\n", { mode: 0o600 });
    const body = join(dir, "body.json");
    writeFileSync(body, '{"id":"x"}');
    const t = Math.floor(Date.now() / 1000);
    const good = `t=${t},v1=${opensslHmac("whsec_e2e000000000000000000000000000", t, Buffer.from('{"id":"x"}'))}`;
    const ok = await cli(
      ["webhooks", "verify", "--secret-file", secretFile, "--header", good, "--body", body],
      { env },
    );
    expect(ok).toMatchObject({ exitCode: 0, stdout: "valid" });
    const piped = await cli(["webhook", "verify", "--secret-file", secretFile, "--header", good], {
      env,
      input: '{"id":"x"}',
    });
    expect(piped.exitCode).toBe(0);
    const bad = await cli(["webhooks", "verify", "--secret-file", secretFile, "--header", good], {
      env,
      input: '{"id":"y"}',
    });
    expect(bad.exitCode).toBe(3);
    expect(bad.stderr).toContain("Invalid signature");
    const unreadable = await cli(
      ["webhooks", "verify", "--secret-file", join(dir, "nope"), "--header", good, "--body", body],
      { env },
    );
    expect(unreadable.exitCode).toBe(2);
  });

  test("listen: a missing secret file is exit 2; a port in use is exit 2", async () => {
    const r = await cli(["webhooks", "listen", "--secret-file", "/nonexistent/secret"], { env });
    expect(r.exitCode).toBe(2);
    const dir = tempDir();
    writeFileSync(join(dir, "s"), "whsec_x\n");
    const busy = createServer();
    await new Promise<void>((res) => busy.listen(0, "127.0.0.1", () => res()));
    const port = (busy.address() as { port: number }).port;
    try {
      const inUse = await cli(
        [
          "webhooks",
          "listen",
          "--secret-file",
          join(dir, "s"),
          "--port",
          String(port),
          "--out",
          join(dir, "e.ndjson"),
        ],
        { env },
      );
      expect(inUse.exitCode).toBe(2);
      expect(inUse.stderr).toContain("EADDRINUSE");
    } finally {
      busy.close();
    }
  });
});
