// What callers give the client and get back: its options (and the per-request bounds from the
// environment), a typed request, a raw one for `partner-cli api`, and their answers. Types only, bar
// two small readers; the client itself is client.ts.
import type { z } from "zod";
import type { Clock } from "../clock.js";
import { type ApiError, type ConfigError, UsageError } from "../errors.js";
import type { ProxySettings } from "./proxy.js";
import type { Query } from "./request-path.js";
import type { RetryClass, RetrySettings } from "./retry-policy.js";

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
  /**
   * Retry waits and the retry deadline go by it (the Context's clock; default: the system's). The
   * per-attempt deadline (requestTimeoutMs) is an I/O timeout on the transport's timers.
   */
  clock?: Clock | undefined;
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
