// A served sandbox killed with SIGKILL while it writes: the next start reads a consistent state (a
// prefix of the acknowledged writes, as of the last complete save) and keeps working. Runs the built
// CLI (dist/ is built by test/global-setup.ts).
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/sandbox.js";

const BIN = fileURLToPath(new URL("../../bin/partner-cli.js", import.meta.url));

interface Served {
  proc: ChildProcess;
  baseUrl: string;
  writeKey: string;
}

async function serve(dataDir: string): Promise<Served> {
  const proc = spawn(
    process.execPath,
    [BIN, "sandbox", "start", "--port", "0", "--json", "--seed", "empty", "--data-dir", dataDir],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PARTNER_CLI_CONFIG_DIR: join(dataDir, "..", "config"), NO_COLOR: "1" },
    },
  );
  let out = "";
  let err = "";
  proc.stderr!.on("data", (c) => {
    err += c;
  });
  const info = await new Promise<{ baseUrl: string; writeKey: string }>((resolve, reject) => {
    proc.stdout!.on("data", (c) => {
      out += c;
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    proc.on("exit", (code) => reject(new Error(`sandbox exited ${code}: ${err}`)));
  });
  return { proc, ...info };
}

async function put(sb: Served, id: string): Promise<number> {
  const res = await fetch(`${sb.baseUrl}/api/partner/v1/creators/${id}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${sb.writeKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: `Name of ${id}` }),
  });
  await res.text();
  return res.status;
}

async function ids(sb: Served): Promise<string[]> {
  const out: string[] = [];
  for (let page = 0; ; page++) {
    const res = await fetch(`${sb.baseUrl}/api/partner/v1/creators?page=${page}&pageSize=200`, {
      headers: { authorization: `Bearer ${sb.writeKey}` },
    });
    const body = (await res.json()) as { items: { externalId: string }[]; totalCount: number };
    out.push(...body.items.map((c) => c.externalId));
    if (out.length >= body.totalCount || body.items.length === 0) return out;
  }
}

/** kill -9, then the lock it held is removed (it would go stale after 15 s; not what is tested here). */
const kill = async (p: ChildProcess, dataDir: string) => {
  await new Promise<void>((resolve) => {
    p.once("exit", () => resolve());
    p.kill("SIGKILL");
  });
  rmSync(join(dataDir, "embedded.lock"), { recursive: true, force: true });
};

describe("a sandbox killed while it writes", () => {
  it("starts again with a prefix of what it acknowledged, and keeps working", async () => {
    const dataDir = join(tempDir(), "data");
    let acknowledged = 0;
    // Three rounds: writes for a while (some 600, so a save and a journal line fall mid-way), kill -9.
    for (let round = 0; round < 3; round++) {
      const sb = await serve(dataDir);
      const before = await ids(sb);
      expect(before, `round ${round}`).toEqual(
        Array.from({ length: before.length }, (_, i) => `kill-${String(i).padStart(5, "0")}`),
      );
      expect(before.length).toBeLessThanOrEqual(acknowledged);
      acknowledged = before.length;
      const until = Date.now() + 400 + round * 250;
      while (Date.now() < until) {
        const status = await put(sb, `kill-${String(acknowledged).padStart(5, "0")}`);
        expect([200, 201]).toContain(status);
        acknowledged++;
      }
      await kill(sb.proc, dataDir);
    }
    const last = await serve(dataDir);
    try {
      const after = await ids(last);
      expect(after.length).toBeGreaterThan(0);
      expect(after).toEqual(
        Array.from({ length: after.length }, (_, i) => `kill-${String(i).padStart(5, "0")}`),
      );
      expect(await put(last, "after-the-crashes")).toBe(201);
    } finally {
      last.proc.kill("SIGTERM");
      await new Promise((r) => last.proc.once("exit", r));
    }
    const again = await serve(dataDir);
    try {
      expect(await ids(again)).toContain("after-the-crashes");
    } finally {
      again.proc.kill("SIGTERM");
      await new Promise((r) => again.proc.once("exit", r));
    }
  }, 120_000);
});
