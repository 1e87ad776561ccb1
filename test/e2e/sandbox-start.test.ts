import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { describe, expect, it } from "vitest";
import { BIN, cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";

interface Started {
  proc: ResultPromise;
  info: { baseUrl: string; writeKey: string; readOnlyKey: string; dataDir: string | null };
  firstLine: string;
}

async function start(args: string[], configDir: string): Promise<Started> {
  const proc = execa("node", [BIN, "sandbox", "start", "--port", "0", "--json", ...args], {
    reject: false,
    env: { NO_COLOR: "1", PARTNER_CLI_CONFIG_DIR: configDir },
    stdin: "ignore",
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    let buf = "";
    proc.stdout!.on("data", (c: Buffer) => {
      buf += c;
      const nl = buf.indexOf("\n");
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    proc.once("exit", (code) => reject(new Error(`sandbox start exited early (${code})`)));
  });
  return { proc, info: JSON.parse(firstLine), firstLine };
}

async function getMe(info: Started["info"], key = info.writeKey) {
  const res = await fetch(`${info.baseUrl}/api/partner/v1/me`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe("sandbox start (spawned)", () => {
  it("prints one JSON line, serves GET /me with the printed key, exits 0 on SIGTERM", async () => {
    const s = await start([], tempDir());
    expect(Object.keys(s.info)).toEqual(["baseUrl", "writeKey", "readOnlyKey", "dataDir"]);
    expect(s.info.dataDir).toBeNull();
    const me = await getMe(s.info);
    expect(me.status).toBe(200);
    expect(me.body.key.canWrite).toBe(true);
    expect((await getMe(s.info, s.info.readOnlyKey)).body.key.canWrite).toBe(false);
    s.proc.kill("SIGTERM");
    const r = await s.proc;
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toBe(s.firstLine);
    expect(String(r.stderr)).toMatch(/Sandbox stopped/);
  });

  it("with --data-dir, data written before SIGTERM is there after a restart", async () => {
    const config = tempDir();
    const dataDir = join(tempDir(), "sb-data");
    const a = await start(["--data-dir", dataDir, "--seed", "empty"], config);
    expect(a.info.dataDir).toBe(dataDir);
    const put = await fetch(`${a.info.baseUrl}/api/partner/v1/creators/${encodeURIComponent("e2e/ü 1")}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${a.info.writeKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Persisted" }),
    });
    expect(put.status).toBe(201);
    a.proc.kill("SIGTERM");
    expect((await a.proc).exitCode).toBe(0);
    // The SQLite store and anything beside it (its WAL, the lock) are the user's alone.
    expect(statSync(join(dataDir, "sandbox.db")).mode & 0o777).toBe(0o600);
    for (const f of readdirSync(dataDir))
      expect([f, statSync(join(dataDir, f)).mode & 0o777]).toEqual([f, 0o600]);

    const b = await start(["--data-dir", dataDir], config);
    try {
      expect(b.info.writeKey).toBe(a.info.writeKey);
      const res = await fetch(`${b.info.baseUrl}/api/partner/v1/creators/${encodeURIComponent("e2e/ü 1")}`, {
        headers: { authorization: `Bearer ${b.info.writeKey}` },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).name).toBe("Persisted");
      // advance and reset act on it through the profile-less environment.
      const env = {
        PARTNER_CLI_CONFIG_DIR: config,
        PARTNER_BASE_URL: b.info.baseUrl,
        PARTNER_API_KEY: b.info.writeKey,
      };
      const adv = await cli(["sandbox", "advance", "1d", "--json"], { env });
      expect(adv.exitCode).toBe(0);
      expect(JSON.parse(adv.stdout).offsetMs).toBe(86_400_000);
      const refused = await cli(["sandbox", "reset"], { env });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toMatch(/--yes/);
      const reset = await cli(["sandbox", "reset", "--yes", "--seed", "empty"], { env });
      expect(reset.exitCode).toBe(0);
      expect(reset.stdout).toMatch(/^reset\tyes\nseed\tempty\n/);
    } finally {
      b.proc.kill("SIGTERM");
      expect((await b.proc).exitCode).toBe(0);
    }
  });

  it("SIGINT stops it too, with exit 0", async () => {
    const s = await start([], tempDir());
    s.proc.kill("SIGINT");
    expect((await s.proc).exitCode).toBe(0);
  });

  it("bad flags are usage errors (exit 2)", async () => {
    const env = { PARTNER_CLI_CONFIG_DIR: tempDir() };
    const r1 = await cli(["sandbox", "start", "--port", "0", "--faults", "nope=1"], { env });
    expect(r1.exitCode).toBe(2);
    expect(r1.stderr).toMatch(/--faults/);
    const r2 = await cli(["sandbox", "start", "--seed", "lots"], { env });
    expect(r2.exitCode).toBe(2);
    const r3 = await cli(["sandbox", "start", "--port", "70000"], { env });
    expect(r3.exitCode).toBe(2);
  });
});
