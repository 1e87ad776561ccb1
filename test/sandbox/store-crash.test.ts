// A served `sandbox start --data-dir` killed with SIGKILL while many clients write: every write it
// answered 2xx is there after the restart (each request's transaction commits, WAL with
// synchronous=FULL, before the answer is sent), and the state is consistent (totals, list order).
// Runs the built CLI (dist/ is built by test/global-setup.ts).
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
  dataDir: string;
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
  return { proc, dataDir, ...info };
}

const headers = (sb: Served) => ({
  authorization: `Bearer ${sb.writeKey}`,
  "content-type": "application/json",
});

/** One PUT; the id when it was answered 2xx, else undefined (refused, or cut by the kill). */
async function put(sb: Served, id: string): Promise<string[]> {
  const res = await fetch(`${sb.baseUrl}/api/partner/v1/creators/${id}`, {
    method: "PUT",
    headers: headers(sb),
    body: JSON.stringify({ name: `Name of ${id}` }),
  });
  await res.text();
  return res.status === 200 || res.status === 201 ? [id] : [];
}

/** One batch of ten; the ids of its added rows when it was answered 200. */
async function batch(sb: Served, ids: string[]): Promise<string[]> {
  const res = await fetch(`${sb.baseUrl}/api/partner/v1/creators/batch`, {
    method: "POST",
    headers: headers(sb),
    body: JSON.stringify({
      creators: ids.map((externalId) => ({ externalId, name: `Batch ${externalId}` })),
    }),
  });
  const body = (await res.json()) as { rows?: { externalId: string; outcome: string }[] };
  return res.status === 200
    ? (body.rows ?? []).filter((r) => r.outcome === "added").map((r) => r.externalId)
    : [];
}

interface Listed {
  ids: string[];
  totalCount: number;
  active: number;
}

/** Every creator, page by page in list order, with the totals the API reports. */
async function list(sb: Served): Promise<Listed> {
  const get = async (q: string) => {
    const res = await fetch(`${sb.baseUrl}/api/partner/v1/creators?${q}`, { headers: headers(sb) });
    return (await res.json()) as { items: { externalId: string }[]; totalCount: number };
  };
  const ids: string[] = [];
  let totalCount = 0;
  for (let page = 0; ; page++) {
    const body = await get(`page=${page}&pageSize=200`);
    totalCount = body.totalCount;
    ids.push(...body.items.map((c) => c.externalId));
    if (body.items.length === 0) break;
  }
  return { ids, totalCount, active: (await get("active=true&pageSize=1")).totalCount };
}

/** kill -9, then the lock it held is removed (it would go stale after 15 s; not what is tested here). */
const kill = async (p: ChildProcess, dataDir: string) => {
  await new Promise<void>((resolve) => {
    p.once("exit", () => resolve());
    p.kill("SIGKILL");
  });
  rmSync(join(dataDir, "embedded.lock"), { recursive: true, force: true });
};

const CLIENTS = 100;

/** CLIENTS clients writing until the kill (after `target` acknowledged writes): PUTs, and every fifth request a batch of ten. */
async function load(
  sb: Served,
  round: number,
  target: number,
): Promise<{ acked: Set<string>; sent: number }> {
  const acked = new Set<string>();
  let sent = 0;
  let stop = false;
  // The kill comes once `target` writes are acknowledged (the clients still writing), not after a fixed time.
  let reached: () => void = () => {};
  const enough = new Promise<void>((r) => {
    reached = r;
  });
  const client = async (c: number) => {
    for (let n = 0; !stop; n++) {
      const id = `r${round}-c${String(c).padStart(3, "0")}-${String(n).padStart(5, "0")}`;
      sent++;
      try {
        const got =
          n % 5 === 4
            ? await batch(
                sb,
                Array.from({ length: 10 }, (_, k) => `${id}-${k}`),
              )
            : await put(sb, id);
        for (const x of got) acked.add(x);
        if (acked.size >= target) reached();
      } catch {
        return; // the connection died with the process: not acknowledged
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
  // (All clients ending first means the server died on its own: the count check below says so.)
  await Promise.race([enough, Promise.all(clients)]);
  const killed = kill(sb.proc, sb.dataDir);
  await killed;
  stop = true;
  await Promise.all(clients);
  return { acked, sent };
}

describe("a served --data-dir sandbox killed (SIGKILL) under many clients", () => {
  it("keeps every write it answered 2xx, and its counts and order agree", async () => {
    const dataDir = join(tempDir(), "data");
    const all = new Set<string>();
    for (let round = 0; round < 2; round++) {
      const sb = await serve(dataDir);
      const { acked, sent } = await load(sb, round, 400 + round * 300);
      for (const id of acked) all.add(id);
      expect(acked.size, `round ${round}: ${sent} requests`).toBeGreaterThanOrEqual(400 + round * 300);
      const again = await serve(dataDir);
      try {
        const got = await list(again);
        const present = new Set(got.ids);
        const lost = [...all].filter((id) => !present.has(id));
        expect(lost, `acknowledged before the kill, gone after it (round ${round})`).toEqual([]);
        // Counts agree with what is listed; the list is in externalId order without duplicates.
        expect(got.totalCount).toBe(got.ids.length);
        expect(present.size).toBe(got.ids.length);
        expect(got.ids).toEqual([...got.ids].sort());
        expect(got.active).toBe(got.totalCount);
      } finally {
        await kill(again.proc, dataDir);
      }
    }
  }, 180_000);
});
