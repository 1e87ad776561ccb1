// The base URL in words: how it is shown in messages (a password masked, its source named) and the
// next step when it is wrong, naming the thing to fix for where it came from. One reason to change:
// how partner-cli tells an operator to correct the address it talks to.
import { UsageError } from "../errors.js";
import type { ProxySettings } from "./proxy.js";

/** The service a client talks to, as messages need it. */
export interface Service {
  /** As configured, trailing slashes removed. */
  baseUrl: string;
  /** Where the base URL came from ("--base-url", "PARTNER_BASE_URL", 'profile "prod"'). */
  source: string | undefined;
  origin: string;
  /** The base URL's path, without a trailing slash ("" for none). */
  pathname: string;
  /** For masking it in excerpts of bodies. */
  apiKey: string;
  proxy: ProxySettings | undefined;
}

/** The origin and path of a base URL; a UsageError (exit 2) when it is not an http(s) URL. */
export function parseBaseUrl(baseUrl: string): { origin: string; pathname: string } {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new UsageError(
      `The base URL "${baseUrl}" is not a URL.`,
      "Pass --base-url like https://partner.example.com (the part before /api/partner/v1).",
    );
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new UsageError(`The base URL "${baseUrl}" must start with http:// or https://.`);
  }
  return { origin: u.origin, pathname: u.pathname.replace(/\/+$/, "") };
}

/** The base URL for messages (a password in it masked) and where it came from. */
export function where(s: Pick<Service, "baseUrl" | "source">): string {
  let shown = s.baseUrl;
  try {
    const u = new URL(s.baseUrl);
    if (u.password) {
      u.password = "****";
      shown = u.href.replace(/\/+$/, "");
    }
  } catch {
    // shown as given
  }
  return s.source ? `${shown} (${s.source})` : shown;
}

/**
 * The next step for a base URL that is wrong, naming the thing to fix for where it came from
 * (never --base-url for a URL from the environment). `pointsTo`: where a redirect pointed.
 */
export function fixHint(source: string | undefined, pointsTo?: string): string {
  const part = "the part before /api/partner/v1";
  let fix: string;
  if (source === "--base-url") fix = `Pass the right --base-url (${part}).`;
  else if (source === "PARTNER_BASE_URL")
    fix = `Set PARTNER_BASE_URL to the right address (${part}) where this command runs; cron and CI jobs have their own environment.`;
  else if (source === "the embedded sandbox")
    fix = "The embedded sandbox is started by partner-cli itself: run again with --verbose and report this.";
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

/** A word as typed in a shell: quoted when it holds anything but letters, digits and `._-`. */
function shellWord(s: string): string {
  return /^[\w.-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
