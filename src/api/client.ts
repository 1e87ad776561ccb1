// The only code that speaks HTTP to the Partner API: undici on a keep-alive agent, bearer auth,
// JSON in/out, error decoding, the retry policy and the --verbose trace (key redacted).
// undici and zod load on the first request, not at start-up: every command builds a Context that
// imports this file, and `--help` or `--version` should not pay for an HTTP stack (see
// docs/benchmarks.md).
import type { Dispatcher } from "undici";
import type { z } from "zod";
import {
  ApiError,
  CancelledError,
  CliError,
  ConfigError,
  NetworkError,
  ProtocolError,
  ResponseTooLargeError,
  UsageError,
} from "../errors.js";
import { type Clock, systemClock } from "../clock.js";
import { maskKey } from "../config/profiles.js";
import {
  backoffMs,
  DEFAULT_RETRY,
  decide,
  type Outcome,
  parseRetryAfter,
  type RetryClass,
  type RetrySettings,
} from "./retry-policy.js";
import { type ProxySettings, proxyFor, proxyTraceLine, redactProxy } from "./proxy.js";
import { certificateError, isCertificateCode, proxyError, proxyRefusalStatus } from "./transport-errors.js";
import { userAgent } from "../version.js";

export const API_PREFIX = "/api/partner/v1";
/** Names this client, its Node and platform to the service (its logs and support tell clients apart). */
const USER_AGENT = userAgent();

export type Query = Record<string, string | number | boolean | null | undefined>;

/** Default total time for one attempt, body included (PARTNER_REQUEST_TIMEOUT_MS). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Default cap on one answer's body (PARTNER_MAX_RESPONSE_BYTES): a 1,000-row feed page is about 0.5 MB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** PARTNER_REQUEST_TIMEOUT_MS / PARTNER_MAX_RESPONSE_BYTES: the per-request bounds (whole numbers). */
export function boundsFromEnv(
  env: NodeJS.ProcessEnv,
): Pick<ClientOptions, "requestTimeoutMs" | "maxResponseBytes"> {
  const num = (name: string, what: string): number | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw)))
      throw new UsageError(`${name} must be a whole number of ${what} above 0, not "${raw}".`);
    return Number(raw);
  };
  const out: Pick<ClientOptions, "requestTimeoutMs" | "maxResponseBytes"> = {};
  const t = num("PARTNER_REQUEST_TIMEOUT_MS", "milliseconds");
  if (t !== undefined) out.requestTimeoutMs = t;
  const b = num("PARTNER_MAX_RESPONSE_BYTES", "bytes");
  if (b !== undefined) out.maxResponseBytes = b;
  return out;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Where the base URL came from ("--base-url", "PARTNER_BASE_URL", 'profile "prod"'), for messages. */
  baseUrlSource?: string | undefined;
  retry?: Partial<RetrySettings>;
  /** Called with trace lines when --verbose is on. */
  trace?: ((line: string) => void) | undefined;
  /** Retry waits go through its sleep (the Context's clock; default: the system's). */
  clock?: Pick<Clock, "sleep"> | undefined;
  /** Called before each retry wait, for user-facing notices. */
  onRetry?: ((info: { method: string; path: string; reason: string; delayMs: number }) => void) | undefined;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /**
   * Total time for one attempt, from sending to the last byte of the answer (default 60 s). A
   * server that trickles its body ends here; the attempt counts as a network failure.
   */
  requestTimeoutMs?: number | undefined;
  /** Largest answer body read (default 64 MiB); past it: ResponseTooLargeError, not retried. */
  maxResponseBytes?: number | undefined;
  /** Aborts requests and retry waits (Ctrl-C): they end with CancelledError. */
  signal?: AbortSignal | undefined;
  /**
   * Proxies from the environment (proxyFromEnv); undefined: always direct (the embedded sandbox,
   * tests). undici's EnvHttpProxyAgent decides per origin with these values, never process.env.
   */
  proxy?: ProxySettings | undefined;
}

/** Result of a recovery read after an uncertain write: the settled value, or "retry" to repeat the write. */
export type Recovery<T> = { value: T } | "retry";

export interface RequestSpec<T> {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path below /api/partner/v1 (or below `prefix`), with segments already encoded (use `seg`). */
  path: string;
  /** Defaults to /api/partner/v1; "/_sandbox" for the sandbox's control routes. */
  prefix?: string | undefined;
  query?: Query | undefined;
  body?: unknown;
  /** The body as JSON text already, or its UTF-8 bytes (sent as it is; instead of `body`). */
  bodyJson?: string | Uint8Array | undefined;
  retry: RetryClass;
  /** Response schema (loose); omitted for bodiless answers. */
  schema?: z.ZodType<T> | undefined;
  /** Read-back after an uncertain outcome (500, lost connection on a create). */
  recover?: (() => Promise<Recovery<T>>) | undefined;
  /** Told the HTTP status (if any) before each retry wait of this request, e.g. to slow down on 429. */
  onRetry?: ((info: { status: number | undefined }) => void) | undefined;
  /**
   * Given the body text of a success answer (2xx) as soon as it has arrived, before it is parsed and
   * checked (e.g. to take a feed's next cursor off the text and request the next page meanwhile).
   * What it is given is not yet known to be the API's JSON: the parsed answer stays the authority.
   */
  onText?: ((text: string) => void) | undefined;
}

export interface Response<T> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

/** A request for `ApiClient.raw`: sent as given. */
export interface RawRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path below /api/partner/v1 (or below `prefix`) with its query string, already encoded. */
  path: string;
  /** The JSON body as text. */
  body?: string | undefined;
  retry: RetryClass;
  /** Defaults to /api/partner/v1; "/_sandbox" for a sandbox's control routes. */
  prefix?: string | undefined;
}

/** The answer of `ApiClient.raw`, as the service sent it. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** For an error answer (status 400 and up): the decoded error, which decides the exit code. */
  error?: ApiError | ConfigError | undefined;
}

/**
 * The service's time from an answer's `Date` header (RFC 9110 IMF-fixdate, whole seconds), or
 * undefined when the header is missing or not a date.
 */
export function dateHeader(headers: Record<string, string | string[] | undefined>): Date | undefined {
  const v = headers.date;
  const text = Array.isArray(v) ? v[0] : v;
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/**
 * Encodes one path segment: externalIds may hold `/`, `%`, `#`, `?`, spaces and unicode. A segment
 * of dots only ("." or "..") is percent-encoded too, so no URL normalization (ours, a proxy's) can
 * read it as "this directory" or "the parent"; the request path is sent exactly as built.
 */
export function seg(value: string): string {
  if (value === "") throw new UsageError("An identifier in a request path must not be empty.");
  if (/^\.+$/.test(value)) return value.replace(/\./g, "%2E");
  return encodeURIComponent(value);
}

export class ApiClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private agentPromise: Promise<Dispatcher> | undefined;
  /**
   * The agent once made: a request then goes out in the same turn as the call that makes it (no
   * wait on a resolved promise), e.g. a feed's next page requested from the previous page's text
   * before that page is parsed.
   */
  private agentReady: Dispatcher | undefined;
  private readonly settings: RetrySettings;
  private readonly opts: ClientOptions;
  private readonly clock: Pick<Clock, "sleep">;

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.apiKey = opts.apiKey;
    this.settings = { ...DEFAULT_RETRY, ...opts.retry };
    this.clock = opts.clock ?? systemClock;
  }

  /**
   * One keep-alive pool per client, created on the first request: an Agent, or undici's
   * EnvHttpProxyAgent when a proxy is set (CONNECT for https:// targets, plain forwarding for
   * http:// ones, as curl does; NO_PROXY decided by undici).
   */
  private agent(): Promise<Dispatcher> {
    if (this.agentPromise) return this.agentPromise;
    const made: Promise<Dispatcher> = import("undici").then(({ Agent, EnvHttpProxyAgent }) => {
      const options = {
        keepAliveTimeout: 10_000,
        connect: { timeout: this.opts.connectTimeoutMs ?? 10_000 },
        headersTimeout: this.opts.headersTimeoutMs ?? 30_000,
        bodyTimeout: this.opts.bodyTimeoutMs ?? 60_000,
      };
      const p = this.opts.proxy;
      const agent =
        p && (p.http || p.https)
          ? new EnvHttpProxyAgent({
              ...options,
              // Given explicitly ("" = none) so undici never falls back to process.env.
              httpProxy: p.http?.url ?? "",
              httpsProxy: p.https?.url ?? "",
              noProxy: p.noProxy,
              proxyTunnel: false,
            })
          : new Agent(options);
      const line = proxyTraceLine(p, this.base().origin);
      if (line) this.trace(line);
      if (this.agentPromise === made) this.agentReady = agent;
      return agent;
    });
    this.agentPromise = made;
    return made;
  }

  async close(): Promise<void> {
    const agent = this.agentPromise;
    this.agentPromise = undefined;
    this.agentReady = undefined;
    if (agent) await (await agent).close();
  }

  /** The full URL of a request (for traces and messages); the path is kept exactly as given. */
  url(path: string, query?: Query, prefix = API_PREFIX): string {
    return this.base().origin + this.requestPath(path, query, prefix);
  }

  private baseCache: { origin: string; pathname: string } | undefined;
  private base(): { origin: string; pathname: string } {
    if (!this.baseCache) {
      let u: URL;
      try {
        u = new URL(this.baseUrl);
      } catch {
        throw new UsageError(
          `The base URL "${this.baseUrl}" is not a URL.`,
          "Pass --base-url like https://partner.example.com (the part before /api/partner/v1).",
        );
      }
      if (u.protocol !== "http:" && u.protocol !== "https:") {
        throw new UsageError(`The base URL "${this.baseUrl}" must start with http:// or https://.`);
      }
      this.baseCache = { origin: u.origin, pathname: u.pathname.replace(/\/+$/, "") };
    }
    return this.baseCache;
  }

  /**
   * Path and query as sent. Built by hand rather than through `new URL()`, which would collapse
   * dot segments; the segments are already encoded by `seg`.
   */
  private requestPath(path: string, query: Query | undefined, prefix: string): string {
    let out = this.base().pathname + prefix + path;
    if (query) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) {
        if (v !== undefined && v !== null) q.set(k, String(v));
      }
      const qs = q.toString();
      if (qs) out += `?${qs}`;
    }
    return out;
  }

  /** One request with the retry policy applied. Returns the parsed body. */
  async call<T>(spec: RequestSpec<T>): Promise<T> {
    return (await this.send(spec)).body;
  }

  async send<T>(spec: RequestSpec<T>): Promise<Response<T>> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      this.checkAborted();
      let outcome: Outcome;
      let failure: Error;
      try {
        return await this.once(spec);
      } catch (err) {
        if (err instanceof ApiError) {
          outcome = { kind: "status", status: err.status, code: err.code, retryAfterMs: err.retryAfterMs };
          failure = err;
        } else if (err instanceof NetworkFailure) {
          outcome = { kind: "network", sent: err.sent };
          failure = this.networkError(spec, err, attempt + 1);
        } else {
          throw err;
        }
      }
      const d = decide(
        spec.retry,
        outcome,
        attempt,
        Date.now() - started,
        this.settings,
        Boolean(spec.recover),
      );
      if (d.action === "fail") throw failure;
      if (d.action === "recover") {
        this.trace(`  outcome uncertain after ${describe(outcome)}; reading back before any repeat`);
        const r = await spec.recover!();
        if (r !== "retry") {
          this.trace("  read-back found the result; not repeating");
          return { status: 200, body: r.value, headers: {} };
        }
        // The read-back says the write may be repeated: within the same attempt and time budget.
        const delayMs = backoffMs(attempt, this.settings);
        if (
          attempt + 1 >= this.settings.maxAttempts ||
          Date.now() - started + delayMs > this.settings.deadlineMs
        ) {
          throw failure;
        }
        this.trace(`  read-back done; repeating in ${delayMs} ms`);
        await this.wait(delayMs);
        continue;
      }
      spec.onRetry?.({ status: outcome.kind === "status" ? outcome.status : undefined });
      this.opts.onRetry?.({
        method: spec.method,
        path: spec.path,
        reason: describe(outcome),
        delayMs: d.delayMs,
      });
      this.trace(`  retrying in ${d.delayMs} ms after ${describe(outcome)}`);
      await this.wait(d.delayMs);
    }
  }

  /** The base URL for messages (a password in it masked) and where it came from. */
  private where(): string {
    let shown = this.baseUrl;
    try {
      const u = new URL(this.baseUrl);
      if (u.password) {
        u.password = "****";
        shown = u.href.replace(/\/+$/, "");
      }
    } catch {
      // shown as given
    }
    const source = this.opts.baseUrlSource;
    return source ? `${shown} (${source})` : shown;
  }

  /**
   * The next step for a base URL that is wrong, naming the thing to fix for where it came from
   * (never --base-url for a URL from the environment). `pointsTo`: where a redirect pointed.
   */
  private fixHint(pointsTo?: string): string {
    const source = this.opts.baseUrlSource;
    const part = "the part before /api/partner/v1";
    let fix: string;
    if (source === "--base-url") fix = `Pass the right --base-url (${part}).`;
    else if (source === "PARTNER_BASE_URL")
      fix = `Set PARTNER_BASE_URL to the right address (${part}) where this command runs; cron and CI jobs have their own environment.`;
    else if (source === "the embedded sandbox")
      fix =
        "The embedded sandbox is started by partner-cli itself: run again with --verbose and report this.";
    else {
      const profile = source ? /^profile "(.*)"$/.exec(source)?.[1] : undefined;
      fix =
        profile !== undefined
          ? `Store the right address in the profile: partner-cli login --profile ${shellWord(profile)} --base-url URL (${part}).`
          : `Check the base URL (${part}).`;
    }
    return pointsTo
      ? `${fix} The redirect points to ${pointsTo}: use that only if it is your Partner API's address.`
      : fix;
  }

  private networkError(spec: RequestSpec<unknown>, f: NetworkFailure, attempts: number): NetworkError {
    const what = f.message !== f.code ? f.message : `${networkPhrase(f.code)} (${f.code})`;
    const proxy = proxyFor(this.opts.proxy, this.base().origin);
    const via = proxy ? ` through the proxy ${redactProxy(proxy.url)} (from ${proxy.variable})` : "";
    const tries = attempts > 1 ? `; gave up after ${attempts} attempts` : "";
    let hint: string;
    if (f.code === TIMED_OUT) {
      hint = `The service is too slow or stalled; try again later. PARTNER_REQUEST_TIMEOUT_MS sets the limit per request (now ${Math.round(this.requestTimeoutMs / 100) / 10} s).`;
    } else if (f.code === "ENOTFOUND") {
      hint = `That host name does not resolve; if it is wrong: ${lowerFirst(this.fixHint())}`;
    } else {
      hint = `If that address is right, the service may be down or unreachable from here: try again later. If it is wrong: ${lowerFirst(this.fixHint())}`;
    }
    return new NetworkError(
      `Could not reach ${this.where()}${via} for ${spec.method} ${spec.path}: ${what}${tries}.`,
      spec.method,
      spec.path,
      hint,
    );
  }

  /** "does not answer like the Partner API": a ConfigError naming the base URL and what came back. */
  private notTheApi(spec: RequestSpec<unknown>, status: number, got: string): ConfigError {
    return new ConfigError(
      `${this.where()} does not answer like ${(spec.prefix ?? API_PREFIX) === API_PREFIX ? "the Partner API" : "a partner-cli sandbox"}: ${spec.method} ${spec.path} got ${status} ${got}.`,
      this.fixHint(),
    );
  }

  /** A short, one-line, key-free excerpt of a body for messages. */
  private excerpt(text: string, max = 100): string {
    let s = text.replace(/\s+/g, " ").trim();
    if (this.apiKey) s = s.split(this.apiKey).join(maskKey(this.apiKey));
    s = s.replace(/[\u0000-\u001f\u007f]/g, "?");
    return s.length > max ? `${s.slice(0, max)}...` : s;
  }

  private describeBody(text: string, contentType: string | undefined, empty = "without a body"): string {
    if (!text.trim()) return empty;
    const type = contentType ? contentType.split(";")[0]!.trim() : "no content type";
    if (/html/i.test(type) || /^\s*</.test(text))
      return `with an HTML page (${type}): "${this.excerpt(text, 80)}"`;
    return `with a body that is not the API's JSON (${type}): "${this.excerpt(text, 80)}"`;
  }

  private get requestTimeoutMs(): number {
    return this.opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  private get maxResponseBytes(): number {
    return this.opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  private checkAborted(): void {
    if (this.opts.signal?.aborted) throw new CancelledError("Interrupted.");
  }

  /** Sleeps between attempts; Ctrl-C ends the wait with CancelledError. */
  private async wait(ms: number): Promise<void> {
    this.checkAborted();
    await this.clock.sleep(ms, this.opts.signal);
    this.checkAborted();
  }

  private trace(line: string): void {
    this.opts.trace?.(line);
  }

  /**
   * One attempt, bounded: a total deadline (requestTimeoutMs) from sending to the last byte, and a
   * cap on the body (maxResponseBytes) counted while it streams in.
   */
  private async once<T>(spec: RequestSpec<T>): Promise<Response<T>> {
    const payload = spec.bodyJson ?? (spec.body !== undefined ? JSON.stringify(spec.body) : undefined);
    const { status, headers, text, contentType } = await this.exchange(spec, payload);
    if (status >= 400) throw await this.decodeError(spec, status, text, headers, contentType);
    if (status < 300 && spec.onText) {
      spec.onText(text);
      // undici writes a request to its socket only once the current task yields: a request the hook
      // started (the next feed page) would otherwise wait for this page's parse and everything after.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    let body: unknown;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        throw this.notTheApi(spec, status, `${this.describeBody(text, contentType)} instead of JSON`);
      }
    } else if (spec.schema) {
      // Every answer of the API that has a schema has a body.
      throw this.notTheApi(spec, status, "without a body");
    }
    if (spec.schema) {
      const parsed = spec.schema.safeParse(body);
      if (!parsed.success) {
        throw new ProtocolError(
          `The service's answer to ${spec.method} ${spec.path} does not match the API: ${parsed.error.issues
            .slice(0, 3)
            .map((i) => `${i.path.join(".")}: ${i.message}`)
            .join("; ")}`,
        );
      }
      body = parsed.data;
    }
    return { status, body: body as T, headers };
  }

  /**
   * One attempt on the wire, shared by typed calls and `raw`: bearer auth, the attempt's deadline
   * (body included), redirects refused, the response size cap, network failures classified. Returns
   * the answer as text; deciding what it means is the caller's.
   */
  private async exchange(
    spec: RequestSpec<unknown>,
    payload: string | Uint8Array | undefined,
  ): Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    text: string;
    contentType: string | undefined;
  }> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: "application/json",
      "user-agent": USER_AGENT,
    };
    if (payload !== undefined) headers["content-type"] = "application/json";
    const t0 = Date.now();
    const path = this.requestPath(spec.path, spec.query, spec.prefix ?? API_PREFIX);
    const url = this.base().origin + path;
    this.trace(`> ${spec.method} ${url}  (authorization: Bearer ${maskKey(this.apiKey)})`);
    const agent = this.agentReady ?? (await this.agent());
    const attempt = this.attemptSignal();
    let res: Dispatcher.ResponseData;
    let bytes: Buffer;
    try {
      try {
        res = await agent.request({
          origin: this.base().origin,
          path,
          method: spec.method,
          headers,
          body: payload ?? null,
          signal: attempt.signal,
        });
      } catch (err) {
        const stop = attempt.interrupted();
        if (stop) throw stop;
        throw this.failedRequest(err as NodeJS.ErrnoException);
      }
      if (res.statusCode === 407 && proxyFor(this.opts.proxy, this.base().origin)) {
        discard(res.body);
        throw this.failedRequest(new Error("Proxy Authentication Required (407)"), 407);
      }
      bytes = await this.readBody(spec, res, url, attempt.interrupted);
    } finally {
      attempt.done();
    }
    const text = bytes.toString("utf8");
    const contentType = headerValue(res.headers["content-type"]);
    this.trace(
      `< ${res.statusCode} ${spec.method} ${spec.path} (${Date.now() - t0} ms, ${bytes.length} bytes)`,
    );
    return { status: res.statusCode, headers: res.headers, text, contentType };
  }

  /**
   * What a request that got no answer becomes: a certificate that does not verify or a proxy that
   * cannot be used (configuration: thrown as they are, never retried), else a NetworkFailure for
   * the retry policy. `status`: a 407 that came back as an answer (plain forwarding of http://).
   */
  private failedRequest(e: NodeJS.ErrnoException, status?: number): Error {
    this.trace(`< ${status ? `proxy answered ${status}` : `network error ${e.code ?? e.message}`}`);
    const origin = this.base().origin;
    const proxy = proxyFor(this.opts.proxy, origin);
    if (isCertificateCode(e.code)) return certificateError(e, origin, this.where(), this.fixHint(), proxy);
    const refused = status ?? proxyRefusalStatus(e.message);
    if (proxy) {
      const fatal = proxyError(e, refused, proxy, origin);
      if (fatal) return fatal;
      // Any other refusal of the proxy's (502, 503: it could not reach the service) sent nothing on.
      if (refused) return new NetworkFailure(`PROXY_${refused}`, false, `the proxy answered ${refused}`);
    }
    // A refused or failed connect never reached the server; anything later may have.
    const never = NEVER_SENT.includes(e.code ?? "");
    return new NetworkFailure(e.code ?? e.message, !never);
  }

  /**
   * One signal for one attempt: Ctrl-C or the attempt's deadline, whichever comes first.
   * `interrupted()` says which one ended it (undefined: neither); `done()` clears the timer.
   */
  private attemptSignal(): { signal: AbortSignal; interrupted: () => Error | undefined; done: () => void } {
    const limitMs = this.requestTimeoutMs;
    const attempt = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attempt.abort();
    }, limitMs);
    const user = this.opts.signal;
    const onUserAbort = () => attempt.abort();
    user?.addEventListener("abort", onUserAbort, { once: true });
    if (user?.aborted) attempt.abort();
    return {
      signal: attempt.signal,
      interrupted: () => {
        if (user?.aborted) return new CancelledError("Interrupted.");
        if (!timedOut) return undefined;
        this.trace(`< no complete answer within ${limitMs} ms`);
        return new NetworkFailure(TIMED_OUT, true, `no complete answer within ${seconds(limitMs)}`);
      },
      done: () => {
        clearTimeout(timer);
        user?.removeEventListener("abort", onUserAbort);
      },
    };
  }

  /** The answer's body, bounded by maxResponseBytes; a redirect is refused unread. */
  private async readBody(
    spec: RequestSpec<unknown>,
    res: Dispatcher.ResponseData,
    url: string,
    interrupted: () => Error | undefined,
  ): Promise<Buffer> {
    // A redirect is never success, whatever the method: nothing is followed.
    if (res.statusCode >= 300 && res.statusCode < 400) {
      discard(res.body);
      this.trace(`< ${res.statusCode} ${spec.method} ${spec.path} (redirect; not followed)`);
      throw this.redirected(spec, res.statusCode, res.headers.location, url);
    }
    const cap = this.maxResponseBytes;
    const announced = Number(res.headers["content-length"]);
    if (Number.isFinite(announced) && announced > cap) {
      discard(res.body);
      this.trace(`< ${res.statusCode} ${spec.method} ${spec.path} announces ${announced} bytes; not read`);
      throw this.tooLarge(spec, cap, `announced ${formatBytes(announced)}`);
    }
    try {
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > cap) {
          discard(res.body);
          this.trace(`< ${res.statusCode} ${spec.method} ${spec.path} passed ${cap} bytes; stopped reading`);
          throw this.tooLarge(spec, cap, "stopped reading there");
        }
        chunks.push(chunk);
      }
      return Buffer.concat(chunks, total);
    } catch (err) {
      if (err instanceof CliError) throw err;
      const stop = interrupted();
      if (stop) throw stop;
      const e = err as NodeJS.ErrnoException;
      this.trace(`< body error ${e.code ?? e.message}`);
      // The request went out; the answer was lost part-way.
      throw new NetworkFailure(e.code ?? e.message, true);
    }
  }

  private redirected(
    spec: RequestSpec<unknown>,
    status: number,
    location: string | string[] | undefined,
    sentUrl: string,
  ): ConfigError {
    const raw = headerValue(location);
    let target: string | undefined;
    let suggestion: string | undefined;
    if (raw) {
      try {
        const to = new URL(raw, sentUrl);
        to.username = "";
        to.password = "";
        target = to.href;
        // Where the same request lives at the new place, the base URL to use is what precedes it.
        const tail = sentUrl.slice(this.base().origin.length + this.base().pathname.length);
        if (tail && target.endsWith(tail)) suggestion = target.slice(0, -tail.length);
      } catch {
        target = this.excerpt(raw, 200);
      }
    }
    const where = target ? `redirect to ${target}` : "a redirect without a Location";
    const source = this.opts.baseUrlSource ? ` (from ${this.opts.baseUrlSource})` : "";
    return new ConfigError(
      `The service answered ${status} (${where}) to ${spec.method} ${spec.path}; nothing was followed. The base URL ${this.baseUrl}${source} is probably wrong: the Partner API answers at its own address, without redirects.`,
      this.fixHint(suggestion),
    );
  }

  private tooLarge(spec: RequestSpec<unknown>, cap: number, how: string): ResponseTooLargeError {
    return new ResponseTooLargeError(
      `The answer to ${spec.method} ${spec.path} from ${this.where()} is larger than the ${formatBytes(cap)} limit (${how}); it was not retried. The Partner API's answers are far smaller (a 1,000-row feed page is about 0.5 MB).`,
      `Check that the base URL is the Partner API; if it is, raise PARTNER_MAX_RESPONSE_BYTES (now ${cap} bytes). ${this.fixHint()}`,
    );
  }

  /**
   * One request whose answer comes back as the service sent it (status, headers, body text), for
   * `partner-cli api`. The same transport as typed calls (deadline, size cap, redirects refused,
   * network errors named) and the same retry policy, without a read-back (`retry`: "read" for GET;
   * "create" for a write of unknown kind, so an uncertain outcome is never repeated). An error
   * answer that the retries did not cure is returned too, with its decoded error (for the exit
   * code); a network failure throws NetworkError.
   */
  async raw(req: RawRequest): Promise<RawResponse> {
    const spec: RequestSpec<unknown> = {
      method: req.method,
      path: req.path,
      retry: req.retry,
      ...(req.prefix ? { prefix: req.prefix } : {}),
    };
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      this.checkAborted();
      let outcome: Outcome;
      let answer: RawResponse | undefined;
      let failure: Error;
      try {
        const ex = await this.exchange(spec, req.body);
        answer = { status: ex.status, headers: ex.headers, text: ex.text };
        if (ex.status < 400) return answer;
        const error = await this.decodeError(spec, ex.status, ex.text, ex.headers, ex.contentType);
        const errorAnswer: RawResponse = { ...answer, error };
        answer = errorAnswer;
        if (!(error instanceof ApiError)) return errorAnswer;
        outcome = {
          kind: "status",
          status: error.status,
          code: error.code,
          retryAfterMs: error.retryAfterMs,
        };
        failure = error;
      } catch (err) {
        if (!(err instanceof NetworkFailure)) throw err;
        outcome = { kind: "network", sent: err.sent };
        failure = this.networkError(spec, err, attempt + 1);
      }
      const d = decide(req.retry, outcome, attempt, Date.now() - started, this.settings, false);
      if (d.action !== "retry") {
        if (answer) return answer;
        throw failure;
      }
      this.opts.onRetry?.({
        method: req.method,
        path: req.path,
        reason: describe(outcome),
        delayMs: d.delayMs,
      });
      this.trace(`  retrying in ${d.delayMs} ms after ${describe(outcome)}`);
      await this.wait(d.delayMs);
    }
  }

  private async decodeError(
    spec: RequestSpec<unknown>,
    status: number,
    text: string,
    headers: Record<string, string | string[] | undefined>,
    contentType: string | undefined,
  ): Promise<ApiError | ConfigError> {
    const { ErrorBody } = await import("../spec/kit.js");
    const ra = headers["retry-after"];
    const retryAfterMs = parseRetryAfter(Array.isArray(ra) ? ra[0] : ra, Date.now());
    let parsed: ReturnType<(typeof ErrorBody)["safeParse"]> | undefined;
    try {
      parsed = ErrorBody.safeParse(JSON.parse(text));
    } catch {
      parsed = undefined;
    }
    const e = parsed?.success ? parsed.data.error : undefined;
    // Every error of the API has the body {error:{code,message}}. A 4xx without it (a 404 page, a
    // 405 from a web server, a login wall's 401) is some other server: the base URL is wrong. A 429
    // or 5xx without it is typically a proxy or gateway in front of the API: temporary, as before.
    if (!e && status >= 400 && status < 500 && status !== 429 && status !== 408) {
      return this.notTheApi(
        spec,
        status,
        this.describeBody(text, contentType, "without the API's error body"),
      );
    }
    let fallback = `The service answered ${status} without an error body.`;
    const snippet = this.excerpt(text, 120);
    if (snippet) fallback = `The service answered ${status} with a body that is not an API error: ${snippet}`;
    return new ApiError({
      status,
      code: e?.code ?? `http_${status}`,
      message: e?.message ?? fallback,
      details: e?.details,
      method: spec.method,
      path: spec.path,
      retryAfterMs,
    });
  }
}

/** Connect-stage failures: the request never reached the server. */
const NEVER_SENT = [
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
];

/** The code of a NetworkFailure for an attempt that passed its total deadline. */
const TIMED_OUT = "TIMED_OUT";

const PHRASES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed while sending",
  UND_ERR_CONNECT_TIMEOUT: "no connection within the connect timeout",
  UND_ERR_HEADERS_TIMEOUT: "no answer within the headers timeout",
  UND_ERR_BODY_TIMEOUT: "the answer stalled",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CLOSED: "connection closed",
};

function networkPhrase(code: string): string {
  return PHRASES[code] ?? "network failure";
}

class NetworkFailure extends Error {
  constructor(
    readonly code: string,
    readonly sent: boolean,
    message?: string,
  ) {
    super(message ?? code);
  }
}

/** Stops reading a body and closes its connection; the abort this raises is expected, not an error. */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}

/** A word as typed in a shell: quoted when it holds anything but letters, digits and `._-`. */
function shellWord(s: string): string {
  return /^[\w.-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KiB`;
  return `${n} bytes`;
}

function describe(o: Outcome): string {
  return o.kind === "status" ? `HTTP ${o.status}${o.code ? ` ${o.code}` : ""}` : "a network failure";
}
