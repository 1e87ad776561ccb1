// The sandbox server: node:http + find-my-way over THE route table (routes.ts), each request through
// one pipeline of named steps (see handle), the engines (webhook delivery, assignment jobs) started
// once with the state. The state is a SQLite store (store.ts): each request runs in one transaction,
// committed (durably: WAL, synchronous=FULL) before its answer is sent.
import { mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import FindMyWay, { type HTTPVersion } from "find-my-way";
import { API_PREFIX } from "../api/client.js";
import { startDelivery } from "./delivery.js";
import { startJobRunner } from "./domain/jobs.js";
import { SandboxError } from "./errors.js";
import type { FaultConfig, FaultKind, Faults } from "./faults.js";
import type { Route, SandboxResponse } from "./http.js";
import { ROUTES } from "./routes.js";
import { Sandbox } from "./sandbox.js";
import { seedStore, type SeedKind, type TestKeys, testKeysOf } from "./seed.js";
import { type KeyRecord, type OrgState, SandboxStore } from "./store.js";

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
  /** Extra start-up hooks run with the live sandbox (the engines start on their own). */
  plugins?: SandboxPlugin[] | undefined;
  /** Told every answer of a Partner API route after it was sent (tests: the documented-values check). */
  onAnswer?: AnswerHook | undefined;
}

/** An answer of a Partner API route: its route, status and body (an object, or JSON text). */
export type AnswerHook = (route: Route, status: number, body: unknown) => void;

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
  /** Nothing left to write: every request commits its transaction before it answers (kept for callers). */
  save(): void;
  close(): Promise<void>;
}

type RouteCallback = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string | undefined>,
) => void;
/** An extra start-up hook run with the live sandbox; returns how to stop what it started. */
export type SandboxPlugin = (sb: RunningSandbox) => (() => void | Promise<void>) | undefined;

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const store = await openState(opts);
  const sandbox = new Sandbox(store, { strictWebhookUrls: opts.strictWebhookUrls, faults: opts.faults });
  const router = routerFor(
    (route, req, res, params) => void handle(sandbox, route, req, res, params, opts.onAnswer),
  );
  const server = createServer((req, res) => {
    // Every answer's Date header is the sandbox clock's (which `sandbox advance` moves), not the machine's.
    res.sendDate = false;
    res.setHeader("date", sandbox.clock.now().toUTCString());
    router.lookup(req, res);
  });
  server.keepAliveTimeout = 30_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
    });
  } catch (err) {
    store.close();
    throw err;
  }
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
    faults: sandbox.faults,
    save: () => {},
    async close() {
      for (const stop of stoppers.reverse()) await stop();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      store.close();
    },
  };
  // The engines start once, with the state loaded: delivery sends what is due, jobs resume.
  const delivery = startDelivery(sandbox);
  const jobs = startJobRunner(sandbox);
  stoppers.push(
    () => delivery.stop(),
    () => jobs.stop(),
  );
  for (const plugin of opts.plugins ?? []) {
    const stop = plugin(running);
    if (stop) stoppers.push(stop);
  }
  return running;
}

/** The state from the data dir's database (seeded when new), or the seed in memory only. */
async function openState(opts: SandboxOptions): Promise<SandboxStore> {
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const store = await SandboxStore.open(opts.dataDir);
  try {
    if (store.isEmpty) store.write(() => seedStore(opts.seed ?? "demo", Date.now(), store));
  } catch (err) {
    store.close();
    throw err;
  }
  return store;
}

/** find-my-way over THE route table (routes.ts), API routes under API_PREFIX, control under CONTROL_PREFIX. */
function routerFor(
  onRoute: (route: Route, req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => void,
) {
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
    router.on(route.method, prefixOf(route) + route.path, ((req, res, params) => {
      onRoute(route, req, res, params as Record<string, string>);
    }) as RouteCallback);
  }
  return router;
}

const prefixOf = (route: Route) => (route.kind === "control" ? CONTROL_PREFIX : API_PREFIX);

/** One request as it goes through the pipeline. */
interface Exchange {
  sb: Sandbox;
  route: Route;
  req: IncomingMessage;
  url: URL;
  /** The caller's key and organization. */
  auth: { key: KeyRecord; state: OrgState };
  /** The fault picked for this API request, if any. */
  fault: FaultKind | undefined;
}

/**
 * The request pipeline: readBody → authenticate → rateLimit → authorize → injectFault → parseBody →
 * dispatch (in one transaction, committed before anything is sent) → faultAfter → send. The sandbox's own control routes skip the API's rate
 * limit, permissions and faults. A step that answers itself (a dropped connection) ends the request.
 */
async function handle(
  sb: Sandbox,
  route: Route,
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
  onAnswer?: AnswerHook,
) {
  const told = (status: number, body: unknown) => {
    if (onAnswer && route.kind === "api") onAnswer(route, status, body);
  };
  try {
    const raw = await readBody(req);
    const x: Exchange = {
      sb,
      route,
      req,
      url: new URL(req.url ?? "/", "http://sandbox"),
      auth: authenticate(sb, req.headers.authorization),
      fault: undefined,
    };
    if (route.kind === "api") {
      await rateLimit(x);
      authorize(x);
      if ((await injectFault(x)) === "answered") return;
    }
    const body = parseBody(raw);
    // Time moved since the last request: the jobs' steps due by now run first (domain/jobs.ts).
    sb.engines.jobs?.catchUp();
    const out = await sb.store.write(() => dispatch(x, params, body, raw));
    changed(x);
    if (faultAfter(x) === "answered") return;
    send(res, out);
    told(out.status, out.body);
  } catch (err) {
    const answer = sendError(res, err);
    told(answer.status, answer.body);
  }
}

/** Injected latency, then the per-key rate limit (429 with Retry-After). */
async function rateLimit({ sb, auth }: Exchange): Promise<void> {
  const { faults } = sb;
  if (faults.config.latencyMs) await sleep(faults.config.latencyMs);
  if (faults.rateLimited(auth.key.key, Date.now())) throw rateLimited(sb);
}

/** Writes need a key with write access. */
function authorize({ route, auth }: Exchange): void {
  if (route.method !== "GET" && !auth.key.canWrite)
    throw new SandboxError("forbidden", "This API key is read-only; writes need a key with write access.");
}

/** The faults that strike before the handler runs; the others are kept for faultAfter. */
async function injectFault(x: Exchange): Promise<"answered" | undefined> {
  const { sb, req, route, url } = x;
  x.fault = sb.faults.pick(req.method ?? "GET", url.pathname.slice(prefixOf(route).length));
  switch (x.fault) {
    case "reset":
      req.socket.destroy();
      return "answered";
    case "stall":
      await sleep(sb.faults.config.stallMs);
      req.socket.destroy();
      return "answered";
    case "429":
      throw rateLimited(sb);
    case "502":
      throw new SandboxError(
        "clearing_network_unavailable",
        "The coupon network did not answer; retry shortly.",
      );
    default:
      return undefined;
  }
}

function rateLimited(sb: Sandbox): SandboxError {
  return new SandboxError("rate_limited", "Too many requests; wait for Retry-After.", undefined, {
    "retry-after": String(sb.faults.config.retryAfterSeconds),
  });
}

/** The JSON body, if any. */
function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new SandboxError("validation_failed", "The request body is not valid JSON.", {
      body: ["must be valid JSON"],
    });
  }
}

/** Runs the route's handler. */
function dispatch(
  { sb, route, req, url, auth }: Exchange,
  params: Record<string, string>,
  body: unknown,
  rawBody: Buffer,
): SandboxResponse | Promise<SandboxResponse> {
  return route.handler({
    method: req.method ?? "GET",
    params,
    query: url.searchParams,
    body,
    rawBody,
    headers: req.headers,
    state: auth.state,
    key: auth.key,
    remoteAddress: req.socket.remoteAddress ?? "unknown",
    sb,
  });
}

/** A write (or any control call) may have changed the state: caches of answers start again. */
function changed({ sb, route }: Exchange): void {
  if (route.method !== "GET" || route.kind === "control") sb.markDirty();
}

/** The faults that strike after the write was applied: a reset, or a 500 with an uncertain outcome. */
function faultAfter({ req, fault }: Exchange): "answered" | undefined {
  if (fault === "reset-after") {
    req.socket.destroy();
    return "answered";
  }
  if (fault === "500")
    throw new SandboxError("unexpected_error", "Unexpected failure; the outcome of the write is uncertain.");
  return undefined;
}

function sendError(res: ServerResponse, err: unknown): SandboxResponse {
  if (err instanceof SandboxError) {
    const out = { status: err.status, body: err.body(), headers: err.headers };
    send(res, out);
    return out;
  }
  const out = {
    status: 500,
    body: { error: { code: "unexpected_error", message: `Sandbox bug: ${(err as Error).message}` } },
  };
  send(res, out);
  if (process.env.PARTNER_SANDBOX_DEBUG) console.error(err);
  return out;
}

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
