// The only code that speaks HTTP to the Partner API: undici on a keep-alive agent, bearer auth,
// JSON in/out, error decoding, the retry policy and the --verbose trace (key redacted).
// undici and zod load on the first request, not at start-up: every command builds a Context that
// imports this file, and `--help` or `--version` should not pay for an HTTP stack (see
// docs/benchmarks.md).
import type { Agent, Dispatcher } from "undici";
import type { z } from "zod";
import { ApiError, CancelledError, NetworkError, ProtocolError, UsageError } from "../errors.js";
import {
  backoffMs,
  DEFAULT_RETRY,
  decide,
  type Outcome,
  parseRetryAfter,
  type RetryClass,
  type RetrySettings,
} from "./retry-policy.js";

export const API_PREFIX = "/api/partner/v1";

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Where the base URL came from ("--base-url", "PARTNER_BASE_URL", 'profile "prod"'), for messages. */
  baseUrlSource?: string | undefined;
  retry?: Partial<RetrySettings>;
  /** Called with trace lines when --verbose is on. */
  trace?: ((line: string) => void) | undefined;
  sleep?: (ms: number) => Promise<void>;
  /** Called before each retry wait, for user-facing notices. */
  onRetry?: ((info: { method: string; path: string; reason: string; delayMs: number }) => void) | undefined;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Aborts requests and retry waits (Ctrl-C): they end with CancelledError. */
  signal?: AbortSignal | undefined;
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
  retry: RetryClass;
  /** Response schema (loose); omitted for bodiless answers. */
  schema?: z.ZodType<T> | undefined;
  /** Read-back after an uncertain outcome (500, lost connection on a create). */
  recover?: (() => Promise<Recovery<T>>) | undefined;
}

export interface Response<T> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

/** A request for `ApiClient.raw`: sent as given. */
export interface RawRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path below /api/partner/v1 with its query string, already encoded. */
  path: string;
  /** The JSON body as text. */
  body?: string | undefined;
  retry: RetryClass;
}

/** The answer of `ApiClient.raw`, as the service sent it. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** For an error answer (status 400 and up): the decoded error, which decides the exit code. */
  error?: ApiError | undefined;
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

export function redactKey(key: string): string {
  return key.length <= 4 ? "****" : `****${key.slice(-4)}`;
}

export class ApiClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private agentPromise: Promise<Agent> | undefined;
  private readonly settings: RetrySettings;
  private readonly opts: ClientOptions;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.apiKey = opts.apiKey;
    this.settings = { ...DEFAULT_RETRY, ...opts.retry };
    this.sleep = opts.sleep ?? ((ms) => abortableSleep(ms, opts.signal));
  }

  /** One keep-alive pool per client, created on the first request. */
  private agent(): Promise<Agent> {
    this.agentPromise ??= import("undici").then(
      ({ Agent }) =>
        new Agent({
          keepAliveTimeout: 10_000,
          connect: { timeout: this.opts.connectTimeoutMs ?? 10_000 },
          headersTimeout: this.opts.headersTimeoutMs ?? 30_000,
          bodyTimeout: this.opts.bodyTimeoutMs ?? 60_000,
        }),
    );
    return this.agentPromise;
  }

  async close(): Promise<void> {
    const agent = this.agentPromise;
    this.agentPromise = undefined;
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
          failure = new NetworkError(
            `Could not reach the service (${err.message}) for ${spec.method} ${spec.path}.`,
            spec.method,
            spec.path,
            "Check the network and --base-url, then try again later.",
          );
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

  private checkAborted(): void {
    if (this.opts.signal?.aborted) throw new CancelledError("Interrupted.");
  }

  /** Sleeps between attempts; Ctrl-C ends the wait with CancelledError. */
  private async wait(ms: number): Promise<void> {
    const signal = this.opts.signal;
    if (!signal) return this.sleep(ms);
    this.checkAborted();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<void>((resolve) => {
      onAbort = resolve;
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([this.sleep(ms), aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort!);
    }
    this.checkAborted();
  }

  private trace(line: string): void {
    this.opts.trace?.(line);
  }

  private async once<T>(spec: RequestSpec<T>): Promise<Response<T>> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: "application/json",
      "user-agent": "partner-cli",
    };
    let payload: string | undefined;
    if (spec.body !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(spec.body);
    }
    const t0 = Date.now();
    const path = this.requestPath(spec.path, spec.query, spec.prefix ?? API_PREFIX);
    const url = this.base().origin + path;
    this.trace(`> ${spec.method} ${url}  (authorization: Bearer ${redactKey(this.apiKey)})`);
    const agent = await this.agent();
    let res: Dispatcher.ResponseData;
    try {
      res = await agent.request({
        origin: this.base().origin,
        path,
        method: spec.method,
        headers,
        body: payload ?? null,
        signal: this.opts.signal,
      });
    } catch (err) {
      if (this.opts.signal?.aborted) throw new CancelledError("Interrupted.");
      const e = err as NodeJS.ErrnoException & { code?: string };
      // A refused or failed connect never reached the server; anything later may have.
      const never = NEVER_SENT.includes(e.code ?? "");
      this.trace(`< network error ${e.code ?? e.message}`);
      throw new NetworkFailure(e.code ?? e.message, !never);
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      if (this.opts.signal?.aborted) throw new CancelledError("Interrupted.");
      const e = err as NodeJS.ErrnoException;
      this.trace(`< body error ${e.code ?? e.message}`);
      // The request went out; the answer was lost part-way.
      throw new NetworkFailure(e.code ?? e.message, true);
    }
    this.trace(
      `< ${res.statusCode} ${spec.method} ${spec.path} (${Date.now() - t0} ms, ${text.length} bytes)`,
    );
    if (res.statusCode >= 400) throw await this.decodeError(spec, res.statusCode, text, res.headers);
    let body: unknown;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        throw new ProtocolError(
          `The service answered ${spec.method} ${spec.path} with something that is not JSON.`,
        );
      }
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
    return { status: res.statusCode, body: body as T, headers: res.headers };
  }

  /**
   * One request whose answer comes back as the service sent it (status, headers, body text), for
   * `partner-cli api`. The retry policy applies as for typed calls, without a read-back (`retry`:
   * "read" for GET; "create" for a write of unknown kind, so an uncertain outcome is never
   * repeated). An error answer that the retries did not cure is returned too, with its decoded
   * ApiError (for the exit code); a network failure throws NetworkError.
   */
  async raw(req: RawRequest): Promise<RawResponse> {
    const spec: RequestSpec<unknown> = { method: req.method, path: req.path, retry: req.retry };
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      this.checkAborted();
      let outcome: Outcome;
      let answer: RawResponse | undefined;
      let failure: Error;
      try {
        answer = await this.rawOnce(req);
        if (answer.status < 400) return answer;
        const error = await this.decodeError(spec, answer.status, answer.text, answer.headers);
        answer = { ...answer, error };
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
        failure = new NetworkError(
          `Could not reach the service (${err.message}) for ${req.method} ${req.path}.`,
          req.method,
          req.path,
          "Check the network and --base-url, then try again later.",
        );
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

  private async rawOnce(req: RawRequest): Promise<RawResponse> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: "application/json",
      "user-agent": "partner-cli",
    };
    if (req.body !== undefined) headers["content-type"] = "application/json";
    const t0 = Date.now();
    const path = this.requestPath(req.path, undefined, API_PREFIX);
    this.trace(
      `> ${req.method} ${this.base().origin + path}  (authorization: Bearer ${redactKey(this.apiKey)})`,
    );
    const agent = await this.agent();
    let res: Dispatcher.ResponseData;
    try {
      res = await agent.request({
        origin: this.base().origin,
        path,
        method: req.method,
        headers,
        body: req.body ?? null,
        signal: this.opts.signal,
      });
    } catch (err) {
      if (this.opts.signal?.aborted) throw new CancelledError("Interrupted.");
      const e = err as NodeJS.ErrnoException & { code?: string };
      this.trace(`< network error ${e.code ?? e.message}`);
      throw new NetworkFailure(e.code ?? e.message, !NEVER_SENT.includes(e.code ?? ""));
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      if (this.opts.signal?.aborted) throw new CancelledError("Interrupted.");
      const e = err as NodeJS.ErrnoException;
      this.trace(`< body error ${e.code ?? e.message}`);
      throw new NetworkFailure(e.code ?? e.message, true);
    }
    this.trace(`< ${res.statusCode} ${req.method} ${req.path} (${Date.now() - t0} ms, ${text.length} bytes)`);
    return { status: res.statusCode, headers: res.headers, text };
  }

  private async decodeError(
    spec: RequestSpec<unknown>,
    status: number,
    text: string,
    headers: Record<string, string | string[] | undefined>,
  ): Promise<ApiError> {
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
    let fallback = `The service answered ${status} without an error body.`;
    const snippet = text.replace(/\s+/g, " ").trim();
    if (snippet) {
      const short = snippet.length > 120 ? `${snippet.slice(0, 120)}...` : snippet;
      fallback = `The service answered ${status} with a body that is not an API error: ${short}`;
    }
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

class NetworkFailure extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
  ) {
    super(message);
  }
}

function describe(o: Outcome): string {
  return o.kind === "status" ? `HTTP ${o.status}${o.code ? ` ${o.code}` : ""}` : "a network failure";
}

/** setTimeout as a promise whose timer is cleared on abort, so an interrupted wait keeps nothing alive. */
function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
