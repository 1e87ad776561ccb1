// A real HTTP server on 127.0.0.1 that misbehaves on purpose (trickles, redirects, answers HTML,
// streams hundreds of megabytes), and forwards everything else to a sandbox when given one.
// It records every request that reaches it.
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Handler = (req: IncomingMessage, res: ServerResponse) => "forward" | undefined | Promise<void>;

export interface Misbehaving {
  url: string;
  /** "METHOD /path?query" of every request, in arrival order. */
  hits: string[];
  count(method: string, pathPart: string): number;
  close(): Promise<void>;
}

export async function misbehaving(handler: Handler, upstream?: string): Promise<Misbehaving> {
  const hits: string[] = [];
  const server: Server = createServer(async (req, res) => {
    hits.push(`${req.method} ${req.url}`);
    const what = await handler(req, res);
    if (what !== "forward") return;
    if (!upstream) {
      res.writeHead(500).end("no upstream");
      return;
    }
    forwardTo(upstream, req, res);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    count: (method, part) => hits.filter((h) => h.startsWith(`${method} `) && h.includes(part)).length,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Answers 200 with JSON headers, then one byte per `everyMs` for ever (until the client goes). */
export function trickle(res: ServerResponse, everyMs = 1000): void {
  res.writeHead(200, { "content-type": "application/json", "content-length": "1000000" });
  res.write("{");
  const t = setInterval(() => res.write(" "), everyMs);
  res.on("close", () => clearInterval(t));
}

/**
 * Streams `total` bytes of a JSON string value (chunked: no Content-Length unless `announce`),
 * honouring backpressure; stops when the client goes. Resolves with the bytes written.
 */
export function stream(res: ServerResponse, total: number, announce = false): Promise<number> {
  return new Promise((resolve) => {
    res.writeHead(200, {
      "content-type": "application/json",
      ...(announce ? { "content-length": String(total) } : {}),
    });
    const chunk = Buffer.alloc(1 << 20, 0x61);
    let sent = 0;
    let gone = false;
    res.on("close", () => {
      gone = true;
      resolve(sent);
    });
    const pump = () => {
      while (!gone && sent < total) {
        const part = sent === 0 ? Buffer.concat([Buffer.from('"'), chunk.subarray(1)]) : chunk;
        sent += part.length;
        if (!res.write(part)) {
          res.once("drain", pump);
          return;
        }
      }
      if (!gone) res.end('"');
    };
    pump();
  });
}

/** A port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Passes a request on to `upstream` (a sandbox's URL) and its answer back, as it came. */
export function forwardTo(upstream: string, req: IncomingMessage, res: ServerResponse): void {
  const up = new URL(upstream);
  const out = request(
    {
      host: up.hostname,
      port: up.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: up.host },
    },
    (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    },
  );
  out.on("error", () => req.socket.destroy());
  req.pipe(out);
}
