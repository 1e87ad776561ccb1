// The local receiver (src/webhooks/receiver.ts) and the event store, in-process, fed by a sandbox on
// port 0 and by hand-made requests (signed with openssl, independent of src/webhooks/signature.ts).
import { createHmac } from "node:crypto";
import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { type Receipt, type RunningReceiver, startReceiver } from "../../src/webhooks/receiver.js";
import { openEventStore } from "../../src/webhooks/event-store.js";
import { deliveryEngine } from "../../src/sandbox/delivery.js";
import { existingWebhooksArea, type OrgState } from "../../src/sandbox/store.js";
import { tempDir } from "../helpers/sandbox.js";
import { opensslHmac, until } from "../sandbox/webhooks-receiver.js";
import { useSandbox } from "../helpers/harness.js";
import { systemClock } from "../../src/clock.js";

const SECRET = "whsec_receivertest000000000000000000000";

function lines(path: string): any[] {
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

function idsIn(path: string): string[] {
  return lines(path).map((e) => e.id);
}

function envelope(id: string, extra: object = {}): string {
  return JSON.stringify({
    id,
    type: "code.issued",
    occurredAt: "2026-11-22T01:00:00.000Z",
    organizationId: "0b7e6a7c-1111-4222-8333-944445555666",
    sample: false,
    data: { claimId: "x" },
    ...extra,
  });
}

async function post(
  url: string,
  body: string | Buffer,
  o: { secret?: string; t?: number; header?: string; method?: string } = {},
) {
  const raw = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const t = o.t ?? Math.floor(Date.now() / 1000);
  const sig = o.header ?? `t=${t},v1=${opensslHmac(o.secret ?? SECRET, t, raw)}`;
  const res = await fetch(url, {
    method: o.method ?? "POST",
    headers: {
      "content-type": "application/json; charset=utf-8",
      "service-signature": sig,
      "service-event-id": "x",
    },
    body: o.method === "GET" ? undefined : raw,
  });
  return { status: res.status, body: await res.text() };
}

describe("receiver rules", () => {
  let dir: string;
  let out: string;
  let rx: RunningReceiver;
  const receipts: Receipt[] = [];
  beforeEach(async () => {
    dir = tempDir("pcli-rx-");
    out = join(dir, "events.ndjson");
  });

  test("stores a valid delivery before 200, once per id; refuses bad signatures, other methods, big bodies", async () => {
    rx = await startReceiver({ secrets: [SECRET], out, maxBody: 2000, onReceipt: (r) => receipts.push(r) });
    try {
      const a = envelope("00000000-0000-7000-8000-00000000000a");
      const r1 = await post(rx.url, a);
      expect(r1.status).toBe(200);
      // Durable before the answer: the line is in the file when the 200 arrives.
      expect(readFileSync(out, "utf8")).toBe(`${a}\n`);
      const r2 = await post(rx.url, a);
      expect(r2.status).toBe(200);
      expect(JSON.parse(r2.body).duplicate).toBe(true);
      expect(idsIn(out)).toEqual(["00000000-0000-7000-8000-00000000000a"]);

      const b = envelope("00000000-0000-7000-8000-00000000000b");
      expect((await post(rx.url, b, { secret: "whsec_wrong" })).status).toBe(400);
      // Past the 300 s tolerance by more than a second can turn while the request is in flight.
      expect((await post(rx.url, b, { t: Math.floor(Date.now() / 1000) - 310 })).status).toBe(400);
      expect((await post(rx.url, b, { t: Math.floor(Date.now() / 1000) + 310 })).status).toBe(400);
      expect((await post(rx.url, b, { header: "t=1" })).status).toBe(400);
      expect((await post(rx.url, b, { header: "" })).status).toBe(400);
      // One byte changed after signing.
      const t = Math.floor(Date.now() / 1000);
      const sig = `t=${t},v1=${opensslHmac(SECRET, t, Buffer.from(b))}`;
      expect((await post(rx.url, b.replace("code.issued", "code.issueD"), { header: sig })).status).toBe(400);
      expect((await post(rx.url, b, { method: "GET" })).status).toBe(405);
      expect(
        (
          await post(
            rx.url,
            envelope("00000000-0000-7000-8000-00000000000c", { data: { pad: "x".repeat(3000) } }),
          )
        ).status,
      ).toBe(413);
      // A signed body that is not an envelope.
      expect((await post(rx.url, "[1,2]")).status).toBe(400);
      expect(idsIn(out)).toEqual(["00000000-0000-7000-8000-00000000000a"]);

      // Samples are acknowledged, not stored.
      const s = await post(rx.url, envelope("00000000-0000-7000-8000-00000000000d", { sample: true }));
      expect(s.status).toBe(200);
      expect(idsIn(out)).toHaveLength(1);
      expect(receipts.map((r) => r.kind)).toEqual([
        "stored",
        "duplicate",
        "rejected",
        "rejected",
        "rejected",
        "rejected",
        "rejected",
        "rejected",
        "rejected",
        "rejected",
        "rejected",
        "sample",
      ]);
      expect(receipts.find((r) => r.status === 400)!.reason).toContain("no v1 signature matches");
      expect(JSON.stringify(receipts)).not.toContain(SECRET);
    } finally {
      await rx.close();
    }
  });

  test("a signed body that is not valid UTF-8 → 400, nothing stored (the file's bytes unchanged)", async () => {
    const receipts: Receipt[] = [];
    rx = await startReceiver({ secrets: [SECRET], out, onReceipt: (r) => receipts.push(r) });
    try {
      const first = envelope("00000000-0000-7000-8000-0000000000f1");
      expect((await post(rx.url, first)).status).toBe(200);
      const before = readFileSync(out);
      // A valid envelope with one byte that cannot be UTF-8 (0xff) inside a string, correctly signed:
      // a lossy decode would store it with U+FFFD; a lone continuation byte and a truncated sequence too.
      const text = envelope("00000000-0000-7000-8000-0000000000f2", { data: { name: "Ana XX" } });
      const at = Buffer.from(text).indexOf("XX");
      for (const bad of [[0xff], [0x80], [0xe2, 0x82]]) {
        const raw = Buffer.concat([
          Buffer.from(text).subarray(0, at),
          Buffer.from(bad),
          Buffer.from(text).subarray(at + 2),
        ]);
        const r = await post(rx.url, raw);
        expect(r.status).toBe(400);
      }
      expect(readFileSync(out).equals(before)).toBe(true);
      expect(receipts.filter((r) => r.status === 400).map((r) => r.reason)).toEqual([
        "the body is not valid UTF-8",
        "the body is not valid UTF-8",
        "the body is not valid UTF-8",
      ]);
      // The same envelope in valid UTF-8 is stored, byte for byte.
      const good = text.replace("XX", "Ñ");
      expect((await post(rx.url, good)).status).toBe(200);
      expect(readFileSync(out, "utf8")).toBe(`${first}\n${good}\n`);
    } finally {
      await rx.close();
    }
  });

  test("de-duplicates across restarts (ids loaded from the file); cuts an unfinished last line", async () => {
    rx = await startReceiver({ secrets: [SECRET], out });
    const a = envelope("00000000-0000-7000-8000-0000000000a1");
    await post(rx.url, a);
    await rx.close();
    // A process killed mid-write leaves a line without its newline (never acknowledged).
    appendFileSync(out, '{"id":"00000000-0000-7000-8000-0000000000a2","ty');
    rx = await startReceiver({ secrets: [SECRET], out });
    try {
      expect(rx.store.repairedBytes).toBeGreaterThan(0);
      expect((await post(rx.url, a)).body).toContain("duplicate");
      const b = envelope("00000000-0000-7000-8000-0000000000a2");
      expect((await post(rx.url, b)).status).toBe(200);
      expect(idsIn(out)).toEqual([
        "00000000-0000-7000-8000-0000000000a1",
        "00000000-0000-7000-8000-0000000000a2",
      ]);
    } finally {
      await rx.close();
    }
  });

  test("either of two secrets (rotation); a pretty-printed body is stored as one line", async () => {
    const OLD = "whsec_old00000000000000000000000000000";
    rx = await startReceiver({ secrets: [SECRET, OLD], out });
    try {
      expect(
        (await post(rx.url, envelope("00000000-0000-7000-8000-0000000000b1"), { secret: OLD })).status,
      ).toBe(200);
      const pretty = JSON.stringify(JSON.parse(envelope("00000000-0000-7000-8000-0000000000b2")), null, 2);
      expect((await post(rx.url, pretty)).status).toBe(200);
      expect(idsIn(out)).toEqual([
        "00000000-0000-7000-8000-0000000000b1",
        "00000000-0000-7000-8000-0000000000b2",
      ]);
    } finally {
      await rx.close();
    }
  });

  test("--forward-to gets the raw body and headers after the save; a failing forward does not change the answer", async () => {
    const got: { body: string; headers: Record<string, unknown> }[] = [];
    let status = 200;
    const fwd = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        got.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => fwd.listen(0, "127.0.0.1", () => r()));
    const errors: string[] = [];
    rx = await startReceiver({
      secrets: [SECRET],
      out,
      forwardTo: `http://127.0.0.1:${(fwd.address() as AddressInfo).port}/app`,
      onForwardError: (_id, m) => errors.push(m),
    });
    try {
      const a = envelope("00000000-0000-7000-8000-0000000000c1");
      expect((await post(rx.url, a)).status).toBe(200);
      await until(() => got.length === 1);
      expect(got[0]!.body).toBe(a);
      expect(String(got[0]!.headers["service-signature"])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      status = 500;
      expect((await post(rx.url, envelope("00000000-0000-7000-8000-0000000000c2"))).status).toBe(200);
      await until(() => errors.length === 1);
      expect(errors[0]).toContain("answered 500");
      await new Promise<void>((r) => fwd.close(() => r()));
      fwd.closeAllConnections();
      expect((await post(rx.url, envelope("00000000-0000-7000-8000-0000000000c3"))).status).toBe(200);
      await until(() => errors.length === 2);
      expect(idsIn(out)).toHaveLength(3);
    } finally {
      await rx.close();
    }
  });

  test("two processes' appends to one store never duplicate an id", async () => {
    const s1 = await openEventStore(out);
    const s2 = await openEventStore(out);
    try {
      const item = (n: number) => ({ id: `id-${n}`, line: JSON.stringify({ id: `id-${n}` }) });
      await s1.append([item(1), item(2)]);
      // s2 opened before s1 wrote; it catches up under the lock.
      const r = await s2.append([item(2), item(3), item(3)]);
      expect(r).toEqual({ appended: ["id-3"], duplicates: ["id-2", "id-3"] });
      expect(idsIn(out)).toEqual(["id-1", "id-2", "id-3"]);
      expect(statSync(out).size).toBeGreaterThan(0);
    } finally {
      await s1.close();
      await s2.close();
    }
  });

  test("under load: 300 concurrent deliveries are all answered 200, each stored once", async () => {
    rx = await startReceiver({ secrets: [SECRET], out });
    try {
      const bodies = Array.from({ length: 300 }, (_, i) =>
        envelope(`00000000-0000-7000-8000-${String(i).padStart(12, "0")}`),
      );
      // Every body twice, all at once.
      // Signed with node:crypto here (openssl per request would dominate the time).
      const t = Math.floor(Date.now() / 1000);
      const headerOf = (b: string) =>
        `t=${t},v1=${createHmac("sha256", SECRET).update(`${t}.${b}`).digest("hex")}`;
      const answers = await Promise.all(
        [...bodies, ...bodies].map((b) => post(rx.url, b, { header: headerOf(b) })),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(answers.filter((a) => a.body.includes("duplicate"))).toHaveLength(300);
      const stored = idsIn(out);
      expect(stored).toHaveLength(300);
      expect(new Set(stored).size).toBe(300);
    } finally {
      await rx.close();
    }
  });

  test("a store lock left by a killed process is taken over at once", async () => {
    const { spawnSync } = await import("node:child_process");
    const dead = spawnSync(process.execPath, [
      "-e",
      "process.stdout.write(String(process.pid))",
    ]).stdout.toString();
    writeFileSync(`${out}.lock`, dead);
    const store = await openEventStore(out);
    // At once: the lock's retry loop never pauses (it pauses on the system clock).
    const pauses = vi.spyOn(systemClock, "sleep");
    try {
      await store.append([{ id: "a", line: '{"id":"a"}' }]);
      expect(pauses).not.toHaveBeenCalled();
      expect(idsIn(out)).toEqual(["a"]);
    } finally {
      pauses.mockRestore();
      await store.close();
    }
  });

  test("a store larger than one read chunk loads every id", async () => {
    const text = Array.from(
      { length: 60_000 },
      (_, i) => `{"id":"big-${i}","pad":"${"x".repeat(60)}"}\n`,
    ).join("");
    writeFileSync(out, text);
    const store = await openEventStore(out);
    try {
      expect(store.count).toBe(60_000);
      expect(store.repairedBytes).toBe(0);
      expect((await store.append([{ id: "big-59999", line: "{}" }])).duplicates).toEqual(["big-59999"]);
    } finally {
      await store.close();
    }
  });

  test("an unwritable store is a clear error at start", async () => {
    writeFileSync(join(dir, "x"), "");
    await expect(startReceiver({ secrets: [SECRET], out: join(dir, "x", "events.ndjson") })).rejects.toThrow(
      /ENOTDIR/,
    );
  });
});

// ---- fed by the sandbox ------------------------------------------------------------------------

const box = useSandbox({ seed: "empty" });
let org: OrgState;
beforeAll(async () => {
  const me = await box.http("GET", "/me");
  org = box.sb.sandbox.org(me.body.organization.id)!;
});

const data = () => ({
  claimId: "6f1c2d8e-1111-4222-8333-944445555666",
  campaign: { id: "0b7e6a7c-1111-4222-8333-944445555666", externalReference: null, name: "S" },
  creator: { externalId: "c1", name: "C" },
  issuedAt: box.sb.sandbox.clock.iso(),
});

async function register(url: string, types = ["code.issued"]): Promise<{ id: string; secret: string }> {
  const r = await box.http("POST", "/webhooks", { body: { url, eventTypes: types } });
  expect(r.status).toBe(201);
  return { id: r.body.webhook.id, secret: r.body.secret };
}

async function clearEndpoints() {
  const list = await box.http("GET", "/webhooks");
  for (const w of list.body.items) await box.http("DELETE", `/webhooks/${w.id}`);
}

const advance = (duration: string) => box.http("POST", "/advance", { control: true, body: { duration } });

function pendingCount(): number {
  const a = existingWebhooksArea(org);
  return a ? [...a.deliveries.values()].filter((d) => d.nextAttemptAtMs !== null).length : 0;
}

describe("deliveries from the sandbox", () => {
  beforeEach(clearEndpoints);

  test("1,000 events with lost acknowledgements and refused first attempts: each id once in the file", async () => {
    const dir = tempDir("pcli-rx1k-");
    const out = join(dir, "events.ndjson");
    const probe = await startReceiver({ secrets: ["whsec_placeholder"], out: join(dir, "probe") });
    const { url, port } = probe;
    await probe.close();
    const ep = await register(url);
    const counts = { stored: 0, duplicate: 0, refused: 0, lost: 0 };
    const tail = (id: string) => Number.parseInt(id.slice(-2), 16);
    const rx = await startReceiver({
      secrets: [ep.secret],
      out,
      port,
      onReceipt: (r) => {
        if (r.kind === "stored" && r.status === 200) counts.stored++;
        if (r.kind === "duplicate") counts.duplicate++;
      },
      // Every 9th event: the first attempt is refused before anything is stored (a retry, out of order).
      intercept: (id, attempt) => {
        if (attempt !== 1 || tail(id) % 9 !== 0) return undefined;
        counts.refused++;
        return 503;
      },
      // Every 7th other event: stored, but the answer says 500 (a lost acknowledgement: a duplicate follows).
      loseAck: (id) => {
        if (tail(id) % 7 !== 0 || tail(id) % 9 === 0) return undefined;
        counts.lost++;
        return 500;
      },
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 1000; i++) ids.push(box.sb.sandbox.emit(org, "code.issued", data()).id);
      // Every first attempt happens; refused and unacknowledged ones wait for their retry (1 min).
      const engine = deliveryEngine(box.sb.sandbox)!;
      await engine.quiet();
      expect(counts.stored + counts.lost + counts.refused).toBe(1000);
      expect(counts.refused).toBeGreaterThan(50);
      expect(counts.lost).toBeGreaterThan(50);
      await advance("2m");
      await engine.quiet();
      expect(pendingCount()).toBe(0);
      const inFile = idsIn(out);
      expect(inFile).toHaveLength(1000);
      expect(new Set(inFile)).toEqual(new Set(ids));
      expect(counts.duplicate).toBe(counts.lost);
      // Retries arrived after newer events: the file order differs from the emit order.
      expect(inFile).not.toEqual(ids);
      // Every line is the envelope exactly as logged.
      const first = lines(out).find((e) => e.id === ids[0]);
      expect(first).toEqual(JSON.parse(JSON.stringify(org.events.list().find((e) => e.id === ids[0]))));
    } finally {
      await rx.close();
    }
  }, 120_000);

  test("receiver closed and restarted mid-stream: every delivery the sandbox marks delivered is in the file, once", async () => {
    const dir = tempDir("pcli-rxkill-");
    const out = join(dir, "events.ndjson");
    let rx = await startReceiver({ secrets: ["whsec_placeholder"], out: join(dir, "probe") });
    const port = rx.port;
    const url = rx.url;
    await rx.close();
    const ep = await register(url);
    rx = await startReceiver({ secrets: [ep.secret], out, port });
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) ids.push(box.sb.sandbox.emit(org, "code.issued", data()).id);
    await until(() => idsIn(out).length >= 40, 20_000);
    await rx.close();
    const deliveredNow = () =>
      [...existingWebhooksArea(org)!.deliveries.values()]
        .filter((d) => d.endpointId === ep.id && d.deliveredAt)
        .map((d) => d.eventId);
    // Whatever the sandbox counts as delivered is in the file.
    const afterKill = new Set(idsIn(out));
    for (const id of deliveredNow()) expect(afterKill.has(id)).toBe(true);
    expect(pendingCount()).toBeGreaterThan(0);

    rx = await startReceiver({ secrets: [ep.secret], out, port });
    try {
      for (let i = 0; i < 10 && pendingCount() > 0; i++) {
        await advance("1h");
        await until(() => pendingCount() === 0 || undefined, 3_000).catch(() => {});
      }
      expect(pendingCount()).toBe(0);
      const stored = idsIn(out);
      expect(stored).toHaveLength(150);
      expect(new Set(stored)).toEqual(new Set(ids));
      for (const id of deliveredNow()) expect(stored).toContain(id);
    } finally {
      await rx.close();
    }
  }, 60_000);
});
