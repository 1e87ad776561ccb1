// Request paths as sent: the API's prefix, encoded path segments and the query string. Built by hand
// rather than through `new URL()`, which would collapse dot segments.
import { UsageError } from "../errors.js";

export const API_PREFIX = "/api/partner/v1";

export type Query = Record<string, string | number | boolean | null | undefined>;

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

/** Path and query as sent, below the base URL's own path; the segments are already encoded by `seg`. */
export function requestPath(
  basePath: string,
  path: string,
  query: Query | undefined,
  prefix: string,
): string {
  let out = basePath + prefix + path;
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
