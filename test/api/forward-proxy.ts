// A real forward proxy on 127.0.0.1 for tests, as a corporate proxy works: CONNECT tunnels for
// https:// targets and plain forwarding (absolute-URI requests) for http:// ones, optionally asking
// for a user and password (407 with Proxy-Authenticate). It counts every request it is asked to
// carry, and resolves host names of its own (`hosts`), so a request to a name no DNS knows can only
// have succeeded through it.
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface ForwardProxy {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** "CONNECT host:port" or "GET http://host:port/path", in arrival order (407s included). */
  seen: string[];
  /** Requests answered 407. */
  refused: number;
  reset(): void;
  close(): Promise<void>;
}

export interface ForwardProxyOptions {
  /** Require these credentials (Basic); without them or with others: 407. */
  auth?: { user: string; password: string };
  /** Host names this proxy resolves itself (name → address), like a proxy's own DNS. */
  hosts?: Record<string, string>;
}

export async function forwardProxy(o: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const state = { refused: 0 };
  const expected = o.auth
    ? `Basic ${Buffer.from(`${o.auth.user}:${o.auth.password}`).toString("base64")}`
    : undefined;
  const allowed = (req: IncomingMessage) => !expected || req.headers["proxy-authorization"] === expected;
  const address = (host: string) => o.hosts?.[host.toLowerCase()] ?? host;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    if (!allowed(req)) {
      state.refused++;
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"', "content-type": "text/html" });
      res.end("<html><body>Proxy Authentication Required</body></html>");
      return;
    }
    const target = new URL(req.url ?? "/");
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const out = request(
      {
        host: address(target.hostname),
        port: target.port || 80,
        method: req.method,
        path: target.pathname + target.search,
        headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });

  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => {});
    if (!allowed(req)) {
      state.refused++;
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    const m = /^(.*):(\d+)$/.exec(req.url ?? "");
    if (!m) {
      client.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const upstream = connect(Number(m[2]), address(m[1]!.replace(/^\[|\]$/g, "")), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"));
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    get refused() {
      return state.refused;
    },
    reset() {
      seen.length = 0;
      state.refused = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
