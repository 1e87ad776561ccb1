// The local webhook receiver behind `webhooks listen` (spec: Delivery, Signature verification rules,
// Receiver rules). Each POST is verified over its raw bytes; a valid envelope is appended to the
// NDJSON event store and fsynced BEFORE the 2xx answer; a known id is answered 200 without
// appending; samples are acknowledged without being stored. Appends go through one queue and are
// batched, so a burst costs one fsync per batch, and every answer still waits for the fsync that
// covers its event.
import { createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { type EventStore, openEventStore, toLine } from "./event-store.js";
import { DEFAULT_TOLERANCE_SECONDS, verifySignature } from "./signature.js";

export const DEFAULT_MAX_BODY = 1_048_576;

/**
 * Strict UTF-8: throws on invalid bytes. `ignoreBOM: true` keeps a leading BOM in the text (so the
 * text is exactly the bytes received, and JSON.parse refuses it as before).
 */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export type ReceiptKind = "stored" | "duplicate" | "sample" | "rejected";

export interface Receipt {
  kind: ReceiptKind;
  /** HTTP status answered. */
  status: number;
  id?: string | undefined;
  type?: string | undefined;
  occurredAt?: string | undefined;
  /** Why a request was refused (signature, size, method, body). Never contains the secret. */
  reason?: string | undefined;
  /** Receiver-clock time of the answer. */
  at: Date;
}

export interface ReceiverOptions {
  /**
   * Secrets to verify with (the current one, plus the previous one during a rotation). Read at each
   * request: `webhooks listen --register` fills it once the endpoint exists; while it is empty,
   * every delivery is refused.
   */
  secrets: readonly string[];
  /** The NDJSON store file. */
  out: string;
  port?: number | undefined;
  host?: string | undefined;
  maxBody?: number | undefined;
  toleranceSeconds?: number | undefined;
  /** After the durable append, POST the raw request (same headers) here too. */
  forwardTo?: string | undefined;
  /** Called once per answered request. */
  onReceipt?: ((r: Receipt) => void) | undefined;
  /** Called when forwarding failed (the delivery was still acknowledged). */
  onForwardError?: ((id: string, message: string) => void) | undefined;
  /** Receiver clock in unix seconds (tests). */
  nowSeconds?: (() => number) | undefined;
  /**
   * Test hook: return a status to answer INSTEAD of handling a verified delivery (nothing is stored).
   * Used to make the sender retry.
   */
  intercept?: ((id: string, attempt: number) => number | undefined) | undefined;
  /**
   * Test hook: after a delivery was stored (durably), answer this status instead of 200, as if the
   * acknowledgement were lost. The sender retries and the retry is a duplicate.
   */
  loseAck?: ((id: string) => number | undefined) | undefined;
}

export interface RunningReceiver {
  url: string;
  port: number;
  store: EventStore;
  /** Stops accepting, lets answers in progress finish, closes the store. */
  close(): Promise<void>;
}

interface Pending {
  id: string;
  line: string;
  resolve: (duplicate: boolean) => void;
  reject: (err: Error) => void;
}

/** The append queue: one batch in flight at a time; each caller learns whether its id was a duplicate. */
class AppendQueue {
  private queue: Pending[] = [];
  flushing: Promise<void> | undefined;
  constructor(private readonly store: EventStore) {}

  enqueue(id: string, line: string): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ id, line, resolve, reject });
      this.flushing ??= this.flush().finally(() => {
        this.flushing = undefined;
      });
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      try {
        const r = await this.store.append(batch.map((p) => ({ id: p.id, line: p.line })));
        const written = new Set(r.appended);
        const seen = new Set<string>();
        for (const p of batch) {
          // The first item of an id in the batch was written; repeats within the batch are duplicates.
          const dup = !written.has(p.id) || seen.has(p.id);
          seen.add(p.id);
          p.resolve(dup);
        }
      } catch (err) {
        for (const p of batch) p.reject(err as Error);
      }
    }
  }
}

type Answer = (
  res: ServerResponse,
  status: number,
  r: Omit<Receipt, "status" | "at">,
  extra?: object,
) => void;

function answerer(onReceipt: ReceiverOptions["onReceipt"]): Answer {
  return (res, status, r, extra) => {
    if (!res.headersSent) {
      const body = JSON.stringify({ ok: status < 300, ...extra });
      res.writeHead(status, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(body),
        ...(status === 405 ? { allow: "POST" } : {}),
      });
      res.end(body);
    }
    onReceipt?.({ ...r, status, at: new Date() });
  };
}

/** POSTs the raw request (same headers) to --forward-to; a failure is reported, never retried. */
function forward(o: ReceiverOptions, req: IncomingMessage, raw: Buffer, id: string): void {
  if (!o.forwardTo) return;
  const target = new URL(o.forwardTo);
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k === "host" || k === "connection" || k === "transfer-encoding") continue;
    headers[k] = v;
  }
  headers["content-length"] = String(raw.length);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  const fwd = send(target, { method: "POST", headers, timeout: 10_000 }, (res) => {
    res.resume();
    if ((res.statusCode ?? 0) >= 300) o.onForwardError?.(id, `${o.forwardTo} answered ${res.statusCode}`);
  });
  fwd.on("timeout", () => fwd.destroy(new Error("no answer within 10 s")));
  fwd.on("error", (err) => o.onForwardError?.(id, `${o.forwardTo}: ${err.message}`));
  fwd.end(raw);
}

/** Reads a POST's body up to maxBody bytes and hands it on; anything else is answered here. */
function bodyReader(
  maxBody: number,
  answer: Answer,
  onBody: (req: IncomingMessage, res: ServerResponse, raw: Buffer) => void,
) {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") {
      req.resume();
      answer(res, 405, { kind: "rejected", reason: `method ${req.method} not allowed` });
      return;
    }
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > maxBody) {
      answer(res, 413, { kind: "rejected", reason: `body of ${declared} bytes over --max-body ${maxBody}` });
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on("data", (c: Buffer) => {
      if (tooBig) return;
      size += c.length;
      if (size > maxBody) {
        tooBig = true;
        chunks.length = 0;
        answer(res, 413, { kind: "rejected", reason: `body over --max-body ${maxBody} bytes` });
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      if (!tooBig) onBody(req, res, Buffer.concat(chunks));
    });
    req.on("error", () => {});
  };
}

interface Envelope {
  text: string;
  sample: boolean;
  info: { id: string; type: string | undefined; occurredAt: string | undefined };
}

/** Verifies the signature and reads the envelope; a string is the reason to refuse it (400). */
function readEnvelope(
  o: ReceiverOptions,
  req: IncomingMessage,
  raw: Buffer,
  nowSeconds: number,
): Envelope | { reason: string; signature?: true } {
  const header = req.headers["service-signature"];
  const v = verifySignature({
    header: Array.isArray(header) ? header.join(",") : header,
    rawBody: raw,
    secrets: o.secrets,
    nowSeconds,
    toleranceSeconds: o.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
  });
  if (!v.ok) return { reason: v.reason, signature: true };
  // Decoded strictly: a body that is not valid UTF-8 is refused, never stored with U+FFFD in
  // place of its bytes (the stored line must be the bytes that were signed).
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return { reason: "the body is not valid UTF-8" };
  }
  let env: { id?: unknown; type?: unknown; occurredAt?: unknown; sample?: unknown };
  try {
    env = JSON.parse(text);
  } catch {
    return { reason: "the body is not JSON" };
  }
  if (typeof env !== "object" || env === null || typeof env.id !== "string" || env.id === "")
    return { reason: "the body is not an event envelope (no id)" };
  return {
    text,
    sample: env.sample === true,
    info: {
      id: env.id,
      type: typeof env.type === "string" ? env.type : undefined,
      occurredAt: typeof env.occurredAt === "string" ? env.occurredAt : undefined,
    },
  };
}

interface Receiving {
  o: ReceiverOptions;
  store: EventStore;
  queue: AppendQueue;
  answer: Answer;
  now: () => number;
  attempts: Map<string, number>;
}

/** A body received in full: verified, then acknowledged as a sample, a duplicate, or once stored. */
async function onBody(r: Receiving, req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  const { o, answer } = r;
  const env = readEnvelope(o, req, raw, r.now());
  if ("reason" in env) {
    answer(
      res,
      400,
      { kind: "rejected", reason: env.reason },
      env.signature ? { error: "signature" } : undefined,
    );
    return;
  }
  const { info } = env;
  const id = info.id;
  if (o.intercept) {
    const n = (r.attempts.get(id) ?? 0) + 1;
    r.attempts.set(id, n);
    const status = o.intercept(id, n);
    if (status !== undefined) {
      answer(res, status, { kind: "rejected", reason: "test hook", ...info });
      return;
    }
  }
  if (env.sample) {
    answer(res, 200, { kind: "sample", ...info });
    forward(o, req, raw, id);
    return;
  }
  if (r.store.has(id)) {
    answer(res, 200, { kind: "duplicate", ...info }, { duplicate: true });
    return;
  }
  let duplicate: boolean;
  try {
    duplicate = await r.queue.enqueue(id, toLine(env.text));
  } catch (err) {
    // Not stored: answer 500 so the service retries.
    answer(res, 500, { kind: "rejected", reason: `could not save: ${(err as Error).message}`, ...info });
    return;
  }
  const lost = duplicate ? undefined : o.loseAck?.(id);
  if (lost !== undefined) {
    answer(res, lost, { kind: "stored", reason: "test hook: acknowledgement withheld", ...info });
    return;
  }
  answer(res, 200, { kind: duplicate ? "duplicate" : "stored", ...info }, duplicate ? { duplicate } : {});
  if (!duplicate) forward(o, req, raw, id);
}

export async function startReceiver(o: ReceiverOptions): Promise<RunningReceiver> {
  const store = await openEventStore(o.out);
  const r: Receiving = {
    o,
    store,
    queue: new AppendQueue(store),
    answer: answerer(o.onReceipt),
    now: o.nowSeconds ?? (() => Math.floor(Date.now() / 1000)),
    attempts: new Map(),
  };
  const server = createServer(
    bodyReader(o.maxBody ?? DEFAULT_MAX_BODY, r.answer, (req, res, raw) => void onBody(r, req, res, raw)),
  );
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 0, o.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${addr.port}/`,
    port: addr.port,
    store,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          // Answers in progress get a moment to finish; then connections are cut.
          setTimeout(() => server.closeAllConnections(), 2_000).unref();
        });
        if (r.queue.flushing) await r.queue.flushing.catch(() => {});
        await store.close();
      })();
      return closing;
    },
  };
}
