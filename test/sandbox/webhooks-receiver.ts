// A test webhook receiver: node:http on 127.0.0.1 port 0 that records every request (raw bytes and
// headers) and answers per script. Plus an INDEPENDENT HMAC (openssl); `until` is test/helpers/wait.ts's.
import { execFileSync } from "node:child_process";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { until } from "../helpers/wait.js";

export { until };

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: any;
  receivedAtMs: number;
}

export interface Reply {
  status?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  headers?: Record<string, string>;
  /** Drop the connection without answering. */
  destroy?: boolean;
}

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** Replies used in order; when exhausted, `fallback` (default 200). */
  script: Reply[];
  fallback: Reply;
  /** Highest number of requests in progress at once. */
  maxConcurrent: number;
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function receiver(script: Reply[] = [], fallback: Reply = { status: 200 }): Promise<Receiver> {
  const r: Receiver = {
    url: "",
    port: 0,
    requests: [],
    script: [...script],
    fallback,
    maxConcurrent: 0,
    waitFor: (n, timeoutMs = 5000) =>
      until(() => (r.requests.length >= n ? r.requests : undefined), timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  let current = 0;
  const server = createServer((req, res) => {
    current += 1;
    r.maxConcurrent = Math.max(r.maxConcurrent, current);
    res.on("close", () => {
      current -= 1;
    });
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let json: any;
      try {
        json = JSON.parse(body.toString("utf8"));
      } catch {
        json = undefined;
      }
      r.requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body,
        json,
        receivedAtMs: Date.now(),
      });
      const reply = r.script.shift() ?? r.fallback;
      const answer = () => {
        if (reply.destroy) return void req.socket.destroy();
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, reply.headers ?? {});
        res.end("ok");
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}/hook`;
  return r;
}

/** HMAC-SHA256 hex computed by openssl (independent of src/webhooks/signature.ts). */
export function opensslHmac(secret: string, t: number | string, rawBody: Buffer): string {
  const input = Buffer.concat([Buffer.from(`${t}.`, "utf8"), rawBody]);
  const out = execFileSync("openssl", ["dgst", "-sha256", "-hmac", secret], { input }).toString("utf8");
  const m = /([0-9a-f]{64})\s*$/.exec(out.trim());
  if (!m) throw new Error(`unexpected openssl output: ${out}`);
  return m[1]!;
}

/** Splits a Service-Signature header into t and v1 values (test-side parsing). */
export function splitSignature(header: string): { t: string; v1: string[] } {
  const parts = header.split(",").map((p) => p.split("="));
  return {
    t: parts.find((p) => p[0] === "t")?.[1] ?? "",
    v1: parts.filter((p) => p[0] === "v1").map((p) => p[1] ?? ""),
  };
}

/** A port free now (for a receiver that must keep one URL across restarts). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
