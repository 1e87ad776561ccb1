// A round trip (one request, its answer as text) and the wrappers around the transport's, each with
// one concern, as gh wraps its HTTP client: the client's identity and bearer auth, and the --verbose
// trace (the key never shown whole).
import { maskKey } from "../config/profiles.js";
import { userAgent } from "../version.js";
import type { Call } from "./failure-words.js";

export interface WireRequest {
  method: string;
  /** Path and query as sent (below the origin). */
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  /** The request as messages and traces name it. */
  call: Call;
}

export interface WireAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  contentType: string | undefined;
  /** The body's length in bytes. */
  bytes: number;
}

export type RoundTrip = (req: WireRequest) => Promise<WireAnswer>;

/** Names this client, its Node and platform to the service (its logs and support tell clients apart). */
const USER_AGENT = userAgent();

/** JSON in and out, the user agent, and the API key as a bearer token. */
export function withAuth(next: RoundTrip, apiKey: string): RoundTrip {
  return (req) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${apiKey}`,
      accept: "application/json",
      "user-agent": USER_AGENT,
      ...req.headers,
    };
    if (req.body !== undefined) headers["content-type"] = "application/json";
    return next({ ...req, headers });
  };
}

/** The --verbose lines of each request and its answer: the URL, the key masked, the time and size. */
export function withTrace(
  next: RoundTrip,
  trace: (line: string) => void,
  origin: () => string,
  apiKey: string,
): RoundTrip {
  return async (req) => {
    const t0 = Date.now();
    trace(`> ${req.method} ${origin()}${req.path}  (authorization: Bearer ${maskKey(apiKey)})`);
    const a = await next(req);
    trace(`< ${a.status} ${req.call.method} ${req.call.path} (${Date.now() - t0} ms, ${a.bytes} bytes)`);
    return a;
  };
}
