// Small pure helpers for stored profiles: names, base URLs, and the only form of a key ever shown.
import { UsageError } from "../errors.js";

export const DEFAULT_PROFILE = "default";
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A profile name: letters, digits, ".", "_", "-", starting with a letter or digit, at most 64. */
export function checkProfileName(name: string): string {
  if (!NAME_RE.test(name)) {
    throw new UsageError(
      `"${name}" is not a valid profile name.`,
      'Use letters, digits, ".", "_" or "-" (starting with a letter or digit, at most 64 characters).',
    );
  }
  return name;
}

/** The only form of a key that is ever printed: "****" and its last 4 characters. */
export function maskKey(key: string): string {
  return key.length <= 4 ? "****" : `****${key.slice(-4)}`;
}

/**
 * Checks and normalizes a service base URL: http(s), no query or fragment, no trailing slash, and
 * without the /api/partner/v1 suffix if the user pasted the full API address.
 */
export function normalizeBaseUrl(raw: string, from: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new UsageError(
      `${from} "${raw}" is not a URL.`,
      "Give the service address, e.g. https://partner.example.com (the part before /api/partner/v1).",
    );
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new UsageError(`${from} "${raw}" must start with https:// or http://.`);
  }
  if (u.username || u.password) {
    throw new UsageError(`${from} must not hold a user name or password.`);
  }
  if (u.search || u.hash) {
    throw new UsageError(`${from} "${raw}" must not have a query (?...) or fragment (#...).`);
  }
  let path = u.pathname.replace(/\/+$/, "");
  path = path.replace(/\/api\/partner\/v1$/, "");
  return `${u.origin}${path}`;
}

/** The masked form of a stored profile's key, wherever the key is kept. */
export function storedKeyMask(p: { apiKey?: string | undefined; keyMask?: string | undefined }): string {
  return p.keyMask ?? maskKey(p.apiKey ?? "");
}

/** Where a profile's key lives, for `profiles show` and `login`. */
export function keyStorageOf(p: { keyStorage?: "keychain" | undefined }): "keychain" | "file" {
  return p.keyStorage === "keychain" ? "keychain" : "file";
}

/** What `profiles list/show --json` and `login --json` print for a profile: never the key itself. */
export interface ProfileView {
  name: string;
  current: boolean;
  baseUrl: string;
  organization: { id: string; name: string; reportingTimeZone: string } | null;
  keyName: string | null;
  canWrite: boolean | null;
  apiKey: string;
  /** Where the key is kept: the OS keychain, or the config file (0600). */
  keyStorage: "keychain" | "file";
  savedAt: string | null;
}

export function profileView(
  name: string,
  p: {
    baseUrl: string;
    apiKey?: string | undefined;
    keyStorage?: "keychain" | undefined;
    keyMask?: string | undefined;
    keyName?: string | undefined;
    canWrite?: boolean | undefined;
    organization?: { id: string; name: string; reportingTimeZone: string } | undefined;
    savedAt?: string | undefined;
  },
  current: boolean,
): ProfileView {
  return {
    name,
    current,
    baseUrl: p.baseUrl,
    organization: p.organization
      ? {
          id: p.organization.id,
          name: p.organization.name,
          reportingTimeZone: p.organization.reportingTimeZone,
        }
      : null,
    keyName: p.keyName ?? null,
    canWrite: p.canWrite ?? null,
    apiKey: storedKeyMask(p),
    keyStorage: keyStorageOf(p),
    savedAt: p.savedAt ?? null,
  };
}

/** The usage error for a profile name that is not stored. */
export function unknownProfile(name: string, known: string[]): UsageError {
  return new UsageError(
    `No profile named "${name}".`,
    known.length
      ? `Stored profiles: ${known.sort().join(", ")}.`
      : 'No profiles are stored; run "partner-cli login" first.',
  );
}

/**
 * An API key goes into an HTTP header: visible ASCII only (no spaces, no line breaks). The error
 * never repeats the key.
 */
export function checkApiKey(key: string, from: string): string {
  if (/\s/.test(key)) {
    throw new UsageError(
      `${from}: the API key must be one word (it holds spaces or several lines).`,
      "Give only the key, on one line.",
    );
  }
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new UsageError(
      `${from}: the API key holds characters an API key cannot have (only visible ASCII is allowed).`,
      "Copy the key again from the service's settings.",
    );
  }
  return key;
}
