// The client of the Partner API: what callers use (ApiClient; its options and request types live in
// client-types.ts and are re-exported here). It composes one-concern modules: the transport
// (transport.ts: undici, the attempt's deadline, size cap, redirects refused), auth and the --verbose
// trace wrapped around it (round-trip.ts), the retry loop on the injected clock (retry-loop.ts; the
// policy in retry-policy.ts), and the words of failures (failure-words.ts, base-url-words.ts).
// undici and zod load on the first request, not at start-up: every command builds a Context that
// imports this file, and `--help` or `--version` should not pay for an HTTP stack (see
// docs/benchmarks.md).
import { type Clock, systemClock } from "../clock.js";
import { ApiError, type ConfigError } from "../errors.js";
import { parseBaseUrl, type Service } from "./base-url-words.js";
import { type Call, decodeError, networkError, notJson, notTheApi, offSchema } from "./failure-words.js";
import { NetworkFailure } from "./network-failure.js";
import { API_PREFIX, type Query, requestPath } from "./request-path.js";
import { type AttemptResult, describeOutcome, withRetries } from "./retry-loop.js";
import { DEFAULT_RETRY, type Outcome, type RetrySettings } from "./retry-policy.js";
import { type RoundTrip, type WireAnswer, withAuth, withTrace } from "./round-trip.js";
import { Transport } from "./transport.js";
import {
  type ClientOptions,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type RawRequest,
  type RawResponse,
  type RequestSpec,
  type Response,
} from "./client-types.js";

export {
  boundsFromEnv,
  type ClientOptions,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  dateHeader,
  type RawRequest,
  type RawResponse,
  type Recovery,
  type RequestSpec,
  type Response,
} from "./client-types.js";
export { API_PREFIX, type Query, seg } from "./request-path.js";

export class ApiClient {
  readonly baseUrl: string;
  private readonly settings: RetrySettings;
  private readonly opts: ClientOptions;
  private readonly clock: Clock;
  private readonly transport: Transport;
  /** The transport wrapped in auth and, with --verbose, the trace. */
  private readonly roundTrip: RoundTrip;
  private serviceCache: Service | undefined;

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.settings = { ...DEFAULT_RETRY, ...opts.retry };
    this.clock = opts.clock ?? systemClock;
    this.transport = new Transport({
      service: () => this.service(),
      connectTimeoutMs: opts.connectTimeoutMs,
      headersTimeoutMs: opts.headersTimeoutMs,
      bodyTimeoutMs: opts.bodyTimeoutMs,
      requestTimeoutMs: this.requestTimeoutMs,
      maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      signal: opts.signal,
      trace: (line) => this.trace(line),
    });
    const authed = withAuth(this.transport.roundTrip, opts.apiKey);
    this.roundTrip = opts.trace
      ? withTrace(authed, opts.trace, () => this.service().origin, opts.apiKey)
      : authed;
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  /** The full URL of a request (for traces and messages); the path is kept exactly as given. */
  url(path: string, query?: Query, prefix = API_PREFIX): string {
    const s = this.service();
    return s.origin + requestPath(s.pathname, path, query, prefix);
  }

  /** The service for messages, its base URL parsed once (a UsageError when it is not a URL). */
  private service(): Service {
    if (!this.serviceCache) {
      const { origin, pathname } = parseBaseUrl(this.baseUrl);
      this.serviceCache = {
        baseUrl: this.baseUrl,
        source: this.opts.baseUrlSource,
        origin,
        pathname,
        apiKey: this.opts.apiKey,
        proxy: this.opts.proxy,
      };
    }
    return this.serviceCache;
  }

  /** One request with the retry policy applied. Returns the parsed body. */
  async call<T>(spec: RequestSpec<T>): Promise<T> {
    return (await this.send(spec)).body;
  }

  async send<T>(spec: RequestSpec<T>): Promise<Response<T>> {
    const recover = spec.recover;
    return withRetries<Response<T>>(
      async (n) => {
        try {
          return { ok: await this.once(spec) };
        } catch (err) {
          if (err instanceof ApiError) return { outcome: statusOutcome(err), failure: err };
          if (!(err instanceof NetworkFailure)) throw err;
          return {
            outcome: { kind: "network", sent: err.sent },
            failure: this.networkError(spec, err, n + 1),
          };
        }
      },
      {
        ...this.loop(spec),
        recover: recover
          ? async () => {
              const r = await recover();
              return r === "retry" ? r : { value: { status: 200, body: r.value, headers: {} } };
            }
          : undefined,
        onRetry: (outcome, delayMs) => {
          spec.onRetry?.({ status: outcome.kind === "status" ? outcome.status : undefined });
          this.notifyRetry(spec, outcome, delayMs);
        },
      },
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
    return withRetries<RawResponse>(
      async (n): Promise<AttemptResult<RawResponse>> => {
        let ex: WireAnswer;
        try {
          ex = await this.exchange(spec, req.body);
        } catch (err) {
          if (!(err instanceof NetworkFailure)) throw err;
          return {
            outcome: { kind: "network", sent: err.sent },
            failure: this.networkError(spec, err, n + 1),
          };
        }
        const answer: RawResponse = { status: ex.status, headers: ex.headers, text: ex.text };
        if (ex.status < 400) return { ok: answer };
        const error = await this.decodeError(spec, ex);
        if (!(error instanceof ApiError)) return { ok: { ...answer, error } };
        return { outcome: statusOutcome(error), failure: error, answer: { ...answer, error } };
      },
      { ...this.loop(spec), onRetry: (outcome, delayMs) => this.notifyRetry(spec, outcome, delayMs) },
    );
  }

  /** What every retry loop of this client shares. */
  private loop(spec: RequestSpec<unknown>) {
    return {
      retry: spec.retry,
      settings: this.settings,
      clock: this.clock,
      signal: this.opts.signal,
      trace: (line: string) => this.trace(line),
    };
  }

  private notifyRetry(spec: RequestSpec<unknown>, outcome: Outcome, delayMs: number): void {
    this.opts.onRetry?.({ method: spec.method, path: spec.path, reason: describeOutcome(outcome), delayMs });
  }

  private get requestTimeoutMs(): number {
    return this.opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  private trace(line: string): void {
    this.opts.trace?.(line);
  }

  private networkError(spec: Call, f: NetworkFailure, attempts: number) {
    return networkError(this.service(), spec, f, attempts, this.requestTimeoutMs);
  }

  private decodeError(spec: Call, ex: WireAnswer): Promise<ApiError | ConfigError> {
    return decodeError(this.service(), spec, ex, ex.contentType, this.clock.now().getTime());
  }

  /** One attempt of a typed call: the answer decoded, parsed and checked against the schema. */
  private async once<T>(spec: RequestSpec<T>): Promise<Response<T>> {
    const payload = spec.bodyJson ?? (spec.body !== undefined ? JSON.stringify(spec.body) : undefined);
    const ex = await this.exchange(spec, payload);
    const { status, headers, text, contentType } = ex;
    if (status >= 400) throw await this.decodeError(spec, ex);
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
        throw notJson(this.service(), spec, status, text, contentType);
      }
    } else if (spec.schema) {
      // Every answer of the API that has a schema has a body.
      throw notTheApi(this.service(), spec, status, "without a body");
    }
    if (spec.schema) {
      const parsed = spec.schema.safeParse(body);
      if (!parsed.success) throw offSchema(spec, parsed.error.issues);
      body = parsed.data;
    }
    return { status, body: body as T, headers };
  }

  /** One attempt on the wire, through auth, the trace and the transport; the answer as text. */
  private exchange(
    spec: RequestSpec<unknown>,
    payload: string | Uint8Array | undefined,
  ): Promise<WireAnswer> {
    const path = requestPath(this.service().pathname, spec.path, spec.query, spec.prefix ?? API_PREFIX);
    return this.roundTrip({ method: spec.method, path, headers: {}, body: payload, call: spec });
  }
}

function statusOutcome(err: ApiError): Outcome {
  return { kind: "status", status: err.status, code: err.code, retryAfterMs: err.retryAfterMs };
}
