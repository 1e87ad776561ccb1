// The words of the client's failures: what went wrong with a request, in a sentence that names the
// service and the request, and the next step. One reason to change: how a failure is explained.
// Decoding the API's error body lives here too, since it decides which of these explanations applies.
import { maskKey } from "../config/profiles.js";
import { ApiError, ConfigError, NetworkError, ProtocolError, ResponseTooLargeError } from "../errors.js";
import { fixHint, type Service, where } from "./base-url-words.js";
import { type NetworkFailure, TIMED_OUT } from "./network-failure.js";
import { proxyFor, redactProxy } from "./proxy.js";
import { API_PREFIX } from "./request-path.js";
import { parseRetryAfter } from "./retry-policy.js";

/** The request a message is about. */
export interface Call {
  method: string;
  path: string;
  prefix?: string | undefined;
}

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

/** A request that got no answer after `attempts` attempts. */
export function networkError(
  s: Service,
  call: Call,
  f: NetworkFailure,
  attempts: number,
  requestTimeoutMs: number,
): NetworkError {
  const what = f.message !== f.code ? f.message : `${PHRASES[f.code] ?? "network failure"} (${f.code})`;
  const proxy = proxyFor(s.proxy, s.origin);
  const via = proxy ? ` through the proxy ${redactProxy(proxy.url)} (from ${proxy.variable})` : "";
  const tries = attempts > 1 ? `; gave up after ${attempts} attempts` : "";
  let hint: string;
  if (f.code === TIMED_OUT) {
    hint = `The service is too slow or stalled; try again later. PARTNER_REQUEST_TIMEOUT_MS sets the limit per request (now ${seconds(requestTimeoutMs)}).`;
  } else if (f.code === "ENOTFOUND") {
    hint = `That host name does not resolve; if it is wrong: ${lowerFirst(fixHint(s.source))}`;
  } else {
    hint = `If that address is right, the service may be down or unreachable from here: try again later. If it is wrong: ${lowerFirst(fixHint(s.source))}`;
  }
  return new NetworkError(
    `Could not reach ${where(s)}${via} for ${call.method} ${call.path}: ${what}${tries}.`,
    call.method,
    call.path,
    hint,
  );
}

/** A redirect (never followed): the base URL is probably wrong; where it points, if the same request lives there. */
export function redirected(
  s: Service,
  call: Call,
  status: number,
  location: string | undefined,
  sentUrl: string,
): ConfigError {
  let target: string | undefined;
  let suggestion: string | undefined;
  if (location) {
    try {
      const to = new URL(location, sentUrl);
      to.username = "";
      to.password = "";
      target = to.href;
      // Where the same request lives at the new place, the base URL to use is what precedes it.
      const tail = sentUrl.slice(s.origin.length + s.pathname.length);
      if (tail && target.endsWith(tail)) suggestion = target.slice(0, -tail.length);
    } catch {
      target = excerpt(s, location, 200);
    }
  }
  const to = target ? `redirect to ${target}` : "a redirect without a Location";
  const source = s.source ? ` (from ${s.source})` : "";
  return new ConfigError(
    `The service answered ${status} (${to}) to ${call.method} ${call.path}; nothing was followed. The base URL ${s.baseUrl}${source} is probably wrong: the Partner API answers at its own address, without redirects.`,
    fixHint(s.source, suggestion),
  );
}

export function tooLarge(s: Service, call: Call, cap: number, how: string): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `The answer to ${call.method} ${call.path} from ${where(s)} is larger than the ${formatBytes(cap)} limit (${how}); it was not retried. The Partner API's answers are far smaller (a 1,000-row feed page is about 0.5 MB).`,
    `Check that the base URL is the Partner API; if it is, raise PARTNER_MAX_RESPONSE_BYTES (now ${cap} bytes). ${fixHint(s.source)}`,
  );
}

/** "does not answer like the Partner API": a ConfigError naming the base URL and what came back. */
export function notTheApi(s: Service, call: Call, status: number, got: string): ConfigError {
  const api = (call.prefix ?? API_PREFIX) === API_PREFIX ? "the Partner API" : "a partner-cli sandbox";
  return new ConfigError(
    `${where(s)} does not answer like ${api}: ${call.method} ${call.path} got ${status} ${got}.`,
    fixHint(s.source),
  );
}

/** A success answer that is not the API's: not JSON, no body where the API has one, or off the schema. */
export function notJson(
  s: Service,
  call: Call,
  status: number,
  text: string,
  contentType: string | undefined,
) {
  return notTheApi(s, call, status, `${describeBody(s, text, contentType)} instead of JSON`);
}

export function offSchema(call: Call, issues: { path: PropertyKey[]; message: string }[]): ProtocolError {
  return new ProtocolError(
    `The service's answer to ${call.method} ${call.path} does not match the API: ${issues
      .slice(0, 3)
      .map((i) => `${i.path.join(".")}: ${i.message}`)
      .join("; ")}`,
  );
}

/**
 * An error answer (400 and up) as an error: the API's {error:{code,message}} decoded into an
 * ApiError, or a ConfigError for a 4xx that is not the API's.
 */
export async function decodeError(
  s: Service,
  call: Call,
  answer: { status: number; text: string; headers: Record<string, string | string[] | undefined> },
  contentType: string | undefined,
  nowMs: number,
): Promise<ApiError | ConfigError> {
  const { status, text, headers } = answer;
  const { ErrorBody } = await import("../spec/kit.js");
  const ra = headers["retry-after"];
  const retryAfterMs = parseRetryAfter(Array.isArray(ra) ? ra[0] : ra, nowMs);
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
    return notTheApi(s, call, status, describeBody(s, text, contentType, "without the API's error body"));
  }
  let fallback = `The service answered ${status} without an error body.`;
  const snippet = excerpt(s, text, 120);
  if (snippet) fallback = `The service answered ${status} with a body that is not an API error: ${snippet}`;
  return new ApiError({
    status,
    code: e?.code ?? `http_${status}`,
    message: e?.message ?? fallback,
    details: e?.details,
    method: call.method,
    path: call.path,
    retryAfterMs,
  });
}

function describeBody(
  s: Service,
  text: string,
  contentType: string | undefined,
  empty = "without a body",
): string {
  if (!text.trim()) return empty;
  const type = contentType ? contentType.split(";")[0]!.trim() : "no content type";
  if (/html/i.test(type) || /^\s*</.test(text))
    return `with an HTML page (${type}): "${excerpt(s, text, 80)}"`;
  return `with a body that is not the API's JSON (${type}): "${excerpt(s, text, 80)}"`;
}

/** A short, one-line, key-free excerpt of a body for messages. */
function excerpt(s: Service, text: string, max = 100): string {
  let out = text.replace(/\s+/g, " ").trim();
  if (s.apiKey) out = out.split(s.apiKey).join(maskKey(s.apiKey));
  out = out.replace(/[\u0000-\u001f\u007f]/g, "?");
  return out.length > max ? `${out.slice(0, max)}...` : out;
}

export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KiB`;
  return `${n} bytes`;
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}
