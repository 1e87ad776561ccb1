// A counting HTTP proxy in front of a sandbox, for client tests: it counts every request that
// reaches it (method + path, as received) and can answer the next matching requests itself, for
// answers the sandbox never gives (503 not_configured, a non-JSON body, a Retry-After date, a body
// with fields from a newer API version). Real HTTP on loopback both ways; nothing is mocked.
import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Injection {
  /** Only requests with this method and a path (below the origin) starting with this. */
  method?: string;
  pathPrefix?: string;
  status: number;
  headers?: Record<string, string>;
  body: string | ((upstream: unknown) => unknown);
  /** How many matching requests get this answer (default 1). */
  times?: number;
}

export interface CountingProxy {
  url: string;
  /** Requests seen, as "METHOD /path?query" in arrival order. */
  seen: string[];
  /** Client connections (remote ports) the requests came in on. */
  sockets: Set<number>;
  count(method: string, pathPrefix: string): number;
  inject(i: Injection): void;
  reset(): void;
  close(): Promise<void>;
}

export async function countingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const seen: string[] = [];
  const sockets = new Set<number>();
  let injections: (Injection & { left: number })[] = [];

  const forward = (
    req: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: upstream.host };
      const out = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 502,
              headers: res.headers as Record<string, string>,
              body: Buffer.concat(chunks),
            }),
          );
          res.on("error", reject);
        },
      );
      out.on("error", reject);
      out.end(body);
    });

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const line = `${req.method} ${req.url}`;
      seen.push(line);
      sockets.add(req.socket.remotePort ?? 0);
      const path = req.url ?? "/";
      const inj = injections.find(
        (i) =>
          i.left > 0 &&
          (!i.method || i.method === req.method) &&
          (!i.pathPrefix || path.startsWith(i.pathPrefix)),
      );
      try {
        if (inj) {
          inj.left--;
          let text: string;
          if (typeof inj.body === "function") {
            const up = await forward(req, body);
            text = JSON.stringify(inj.body(JSON.parse(up.body.toString("utf8"))));
          } else {
            text = inj.body;
          }
          res.writeHead(inj.status, { "content-length": String(Buffer.byteLength(text)), ...inj.headers });
          res.end(text);
          return;
        }
        const up = await forward(req, body);
        const headers = { ...up.headers };
        delete headers["transfer-encoding"];
        delete headers.connection;
        delete headers["keep-alive"];
        headers["content-length"] = String(up.body.length);
        res.writeHead(up.status, headers);
        res.end(up.body);
      } catch {
        // The sandbox dropped the connection (an injected reset or stall): drop ours too.
        req.socket.destroy();
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    sockets,
    count: (method, pathPrefix) => seen.filter((l) => l.startsWith(`${method} ${pathPrefix}`)).length,
    inject: (i) => {
      injections.push({ ...i, left: i.times ?? 1 });
    },
    reset: () => {
      seen.length = 0;
      sockets.clear();
      injections = [];
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
