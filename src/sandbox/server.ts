// The sandbox server: node:http + find-my-way over THE route table (routes.ts), authentication,
// JSON bodies, fault injection, and persistence of the state (persist.ts: loaded lazily, written
// incrementally a moment after each change, never on a read).
import { mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import FindMyWay, { type HTTPVersion } from "find-my-way";
import { API_PREFIX } from "../api/client.js";
import { assignmentJobsPlugin } from "./domain/campaigns.js";
import { deliveryPlugin } from "./delivery.js";
import { SandboxError } from "./errors.js";
import type { FaultConfig, Faults } from "./faults.js";
import type { Route, SandboxRequest, SandboxResponse } from "./http.js";
import { SandboxPersistence } from "./persist.js";
import { ROUTES } from "./routes.js";
import { Sandbox } from "./sandbox.js";
import { seedStore, type SeedKind, type TestKeys, testKeysOf } from "./seed.js";
import type { Store } from "./store.js";

export const CONTROL_PREFIX = "/_sandbox";
const MAX_BODY = 16 * 1024 * 1024;

export interface SandboxOptions {
  port?: number | undefined;
  host?: string | undefined;
  /** Where state persists; without it the sandbox lives in memory only. */
  dataDir?: string | undefined;
  seed?: SeedKind | undefined;
  faults?: Partial<FaultConfig> | undefined;
  strictWebhookUrls?: boolean | undefined;
  /** Extra start-up hooks (delivery engine etc.) run with the live sandbox. */
  plugins?: ((sb: RunningSandbox) => (() => void | Promise<void>) | undefined)[] | undefined;
}

export interface RunningSandbox {
  url: string;
  port: number;
  writeKey: string;
  readOnlyKey: string;
  dataDir: string | undefined;
  /** Keys for tests: another organization, a revoked key, a deactivated organization. */
  testKeys: TestKeys;
  sandbox: Sandbox;
  faults: Faults;
  /** Writes what changed now (no-op without a data dir). */
  save(): void;
  close(): Promise<void>;
}

type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string | undefined>,
) => void;

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  let store: Store | undefined;
  let persistence: SandboxPersistence | undefined;
  if (opts.dataDir) {
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
    ({ persistence, store } = SandboxPersistence.open(opts.dataDir));
  }
  store ??= seedStore(opts.seed ?? "demo");
  // A new data dir gets its first files now; an existing one is written only when something changes.
  if (persistence?.isNew) persistence.create(store);
  const sandbox = new Sandbox(store, { strictWebhookUrls: opts.strictWebhookUrls, faults: opts.faults });
  const faults = sandbox.faults;
  const holder: { running?: RunningSandbox } = {};

  const router = FindMyWay<HTTPVersion.V1>({
    ignoreTrailingSlash: true,
    caseSensitive: true,
    // An externalId of 100 characters can take 1,200 once percent-encoded (4-byte UTF-8).
    maxParamLength: 4096,
    defaultRoute: (req, res) => {
      send(res, {
        status: 404,
        body: { error: { code: "not_found", message: `No route for ${req.method} ${req.url}.` } },
      });
    },
  });
  for (const route of ROUTES) {
    const prefix = route.kind === "control" ? CONTROL_PREFIX : API_PREFIX;
    router.on(route.method, prefix + route.path, ((req, res, params) => {
      void handle(route, req, res, params as Record<string, string>);
    }) as Handler);
  }

  let dirty = false;
  let wrote = false;
  let saveTimer: NodeJS.Timeout | undefined;
  const save = () => {
    if (!persistence) return;
    dirty = false;
    if (persistence.commit(store)) wrote = true;
  };
  if (persistence) {
    sandbox.onDirty(() => {
      dirty = true;
      if (!saveTimer) {
        saveTimer = setTimeout(() => {
          saveTimer = undefined;
          if (!dirty) return;
          try {
            save();
          } catch (err) {
            // A failed background save must not crash the server; the next change (or close) retries.
            dirty = true;
            process.emitWarning(`sandbox state not saved to ${opts.dataDir}: ${(err as Error).message}`);
          }
        }, 250);
        saveTimer.unref();
      }
    });
  }

  async function handle(
    route: Route,
    req: IncomingMessage,
    res: ServerResponse,
    params: Record<string, string>,
  ) {
    const url = new URL(req.url ?? "/", "http://sandbox");
    const apiPath = url.pathname.slice((route.kind === "control" ? CONTROL_PREFIX : API_PREFIX).length);
    let fault: ReturnType<Faults["pick"]>;
    try {
      const raw = await readBody(req);
      const auth = authenticate(sandbox, req.headers.authorization);
      if (route.kind !== "control") {
        if (faults.config.latencyMs) await sleep(faults.config.latencyMs);
        if (faults.rateLimited(auth.key.key, Date.now())) {
          throw new SandboxError("rate_limited", "Too many requests; wait for Retry-After.", undefined, {
            "retry-after": String(faults.config.retryAfterSeconds),
          });
        }
        if (route.method !== "GET" && !auth.key.canWrite) {
          throw new SandboxError(
            "forbidden",
            "This API key is read-only; writes need a key with write access.",
          );
        }
        fault = faults.pick(req.method ?? "GET", apiPath);
        if (fault === "reset") return void req.socket.destroy();
        if (fault === "stall") {
          await sleep(faults.config.stallMs);
          return void req.socket.destroy();
        }
        if (fault === "429") {
          throw new SandboxError("rate_limited", "Too many requests; wait for Retry-After.", undefined, {
            "retry-after": String(faults.config.retryAfterSeconds),
          });
        }
        if (fault === "502")
          throw new SandboxError(
            "clearing_network_unavailable",
            "The coupon network did not answer; retry shortly.",
          );
      }
      let body: unknown;
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          throw new SandboxError("validation_failed", "The request body is not valid JSON.", {
            body: ["must be valid JSON"],
          });
        }
      }
      const sreq: SandboxRequest = {
        method: req.method ?? "GET",
        params,
        query: url.searchParams,
        body,
        rawBody: raw,
        headers: req.headers,
        state: auth.state,
        key: auth.key,
        remoteAddress: req.socket.remoteAddress ?? "unknown",
        sb: sandbox,
      };
      const out = await route.handler(sreq);
      if (route.method !== "GET" || route.kind === "control") sandbox.markDirty();
      if (fault === "reset-after") return void req.socket.destroy();
      if (fault === "500")
        throw new SandboxError(
          "unexpected_error",
          "Unexpected failure; the outcome of the write is uncertain.",
        );
      send(res, out);
    } catch (err) {
      if (err instanceof SandboxError) {
        send(res, { status: err.status, body: err.body(), headers: err.headers });
      } else {
        send(res, {
          status: 500,
          body: { error: { code: "unexpected_error", message: `Sandbox bug: ${(err as Error).message}` } },
        });
        if (process.env.PARTNER_SANDBOX_DEBUG) console.error(err);
      }
    }
  }

  const server: Server = createServer((req, res) => {
    router.lookup(req, res);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // A wildcard listen address is reached through loopback.
  const host = !opts.host || opts.host === "0.0.0.0" ? "127.0.0.1" : opts.host === "::" ? "::1" : opts.host;
  const stoppers: (() => void | Promise<void>)[] = [];
  const running: RunningSandbox = {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    writeKey: store.defaultKeys.writeKey,
    readOnlyKey: store.defaultKeys.readOnlyKey,
    dataDir: opts.dataDir,
    testKeys: testKeysOf(store),
    sandbox,
    faults,
    save,
    async close() {
      for (const stop of stoppers.reverse()) await stop();
      if (saveTimer) clearTimeout(saveTimer);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      // Only changes are written: a run of reads leaves the data dir as it was.
      if (dirty) save();
      if (wrote) persistence?.close();
    },
  };
  holder.running = running;
  for (const plugin of [...defaultPlugins, ...(opts.plugins ?? [])]) {
    const stop = plugin(running);
    if (stop) stoppers.push(stop);
  }
  return running;
}

/** Start-up hooks every sandbox runs (areas such as webhook delivery register here). */
export const defaultPlugins: ((sb: RunningSandbox) => (() => void | Promise<void>) | undefined)[] = [
  deliveryPlugin,
  assignmentJobsPlugin,
];

function authenticate(sb: Sandbox, header: string | undefined) {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  const unauth = (message: string) => new SandboxError("unauthenticated", message);
  if (!m) throw unauth("Missing API key: send Authorization: Bearer <API_KEY>.");
  const key = sb.store.keys.get(m[1]!);
  if (!key || key.revoked) throw unauth("The API key is invalid or revoked.");
  const state = sb.org(key.orgId);
  if (!state?.org.active) throw unauth("The organization is deactivated.");
  return { key, state };
}

/** Reads the body; one over MAX_BODY is drained (so the client gets its answer) and refused with a 400. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
      else chunks.length = 0;
    });
    req.on("end", () => {
      if (size > MAX_BODY) {
        reject(
          new SandboxError("validation_failed", "The request body is too large (at most 16 MB).", {
            body: ["must be at most 16 MB"],
          }),
        );
      } else resolve(Buffer.concat(chunks));
    });
    req.on("error", reject);
  });
}

function send(res: ServerResponse, out: SandboxResponse) {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string> = { ...(out.headers ?? {}) };
  if (out.body === undefined) {
    res.writeHead(out.status, headers);
    res.end();
    return;
  }
  const text =
    typeof out.body === "string" || Buffer.isBuffer(out.body) ? out.body : JSON.stringify(out.body);
  headers["content-type"] ??= "application/json; charset=utf-8";
  headers["content-length"] = String(Buffer.byteLength(text));
  res.writeHead(out.status, headers);
  res.end(text);
}

/** A wait that does not keep the process alive (a stalled request must not delay shutdown). */
function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms).unref());
}
