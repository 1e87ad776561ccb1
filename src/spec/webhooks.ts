// Webhook endpoints and deliveries (spec: Webhook endpoint, Webhook delivery, Webhooks endpoints),
// plus the registration rules for url and eventTypes, shared by the CLI pre-check and the sandbox.
import { isIP } from "node:net";
import { z } from "zod";
import { EVENT_TYPES, type EventType, isEventType } from "./events.js";
import { type Kit, kit, Timestamp } from "./kit.js";
import { LIMITS } from "./limits.js";

const WEBHOOK_STATUSES = ["ok", "needs_attention", "paused"] as const;
const FAILURE_CATEGORIES = ["rejected", "redirected", "timed_out", "unreachable", "not_signed"] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/** Waits after each failed attempt (retry 1..6), in milliseconds. Seven attempts in total. */
export const RETRY_WAITS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, 86_400_000] as const;
export const SIGNING_SECRET_PREFIX = "whsec_";

function webhookSchemas(k: Kit) {
  const Webhook = k.obj({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(k.en(EVENT_TYPES)),
    active: z.boolean(),
    status: k.en(WEBHOOK_STATUSES),
    failingSince: Timestamp.nullable(),
    lastDeliveredAt: Timestamp.nullable(),
    previousSecretExpiresAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  });
  const Delivery = k.obj({
    id: z.string(),
    eventId: z.string(),
    eventType: k.en(EVENT_TYPES),
    occurredAt: Timestamp,
    sample: z.boolean(),
    attempts: z.number().int(),
    lastAttemptAt: Timestamp.nullable(),
    nextAttemptAt: Timestamp.nullable(),
    deliveredAt: Timestamp.nullable(),
    failedAt: Timestamp.nullable(),
    lastStatusCode: z.number().int().nullable(),
    lastFailureCategory: k.en(FAILURE_CATEGORIES).nullable(),
  });
  const WebhookList = k.obj({
    items: z.array(Webhook),
    limit: z.number().int(),
    configured: z.boolean(),
  });
  const WebhookWithSecret = k.obj({ webhook: Webhook, secret: z.string() });
  const WebhookDetail = k.obj({ webhook: Webhook, recentDeliveries: z.array(Delivery) });
  return { Webhook, Delivery, WebhookList, WebhookWithSecret, WebhookDetail };
}
export const strictWebhooks = webhookSchemas(kit("strict"));
export const looseWebhooks = webhookSchemas(kit("loose"));
export type Webhook = z.infer<typeof strictWebhooks.Webhook>;
export type WebhookDelivery = z.infer<typeof strictWebhooks.Delivery>;

// ---- registration rules -------------------------------------------------------------------

export interface UrlRuleOptions {
  /**
   * Accept http and https on loopback (127.0.0.0/8, localhost, [::1]). The sandbox does this unless
   * started with strictWebhookUrls, so tests and `webhooks listen` can receive deliveries.
   */
  allowLoopback?: boolean;
}

function ipv4ToInt(ip: string): number {
  return ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

const V4_BLOCKED: [string, number, string][] = [
  ["0.0.0.0", 8, "an unspecified address"],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a shared (carrier-grade NAT) address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local address"],
  ["172.16.0.0", 12, "a private address"],
  ["192.168.0.0", 16, "a private address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "a reserved address"],
];

function v4Problem(ip: string): string | undefined {
  const n = ipv4ToInt(ip);
  for (const [base, bits, what] of V4_BLOCKED) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((n & mask) >>> 0 === (ipv4ToInt(base) & mask) >>> 0) return what;
  }
  return undefined;
}

/** Expands an IPv6 address (no brackets) to eight 16-bit groups. */
function ipv6Groups(ip: string): number[] {
  let s = ip;
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const n = ipv4ToInt(v4[1]!);
    tail.push(n >>> 16, n & 0xffff);
    s = s.slice(0, -v4[1]!.length);
    if (s.endsWith(":") && !s.endsWith("::")) s = s.slice(0, -1);
  }
  const [head, rest] = s.split("::") as [string, string | undefined];
  const parse = (p: string) => (p ? p.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const h = parse(head);
  const r = rest === undefined ? [] : parse(rest);
  const missing = 8 - tail.length - h.length - r.length;
  return [...h, ...(rest === undefined ? [] : new Array(Math.max(0, missing)).fill(0)), ...r, ...tail];
}

function v6Problem(ip: string): string | undefined {
  const g = ipv6Groups(ip);
  if (g.every((x) => x === 0)) return "an unspecified address";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "a loopback address";
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms carry an IPv4 address.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    const v4 = `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
    const p = v4Problem(v4);
    if (p) return p;
  }
  if ((g[0]! & 0xfe00) === 0xfc00) return "a unique local (private) address";
  if ((g[0]! & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g[0]! & 0xff00) === 0xff00) return "a multicast address";
  return undefined;
}

/** True for loopback hosts (localhost, 127.0.0.0/8, ::1), given a URL hostname. */
function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return v6Problem(h) === "a loopback address";
  return false;
}

/**
 * Checks a webhook URL against the spec's rules: HTTPS, at most 2,000 characters, a publicly
 * reachable host, no sign-in details, no fragment; local and private addresses refused.
 * Returns the reasons it is refused (empty when accepted).
 */
export function checkWebhookUrl(raw: unknown, opts: UrlRuleOptions = {}): string[] {
  if (typeof raw !== "string") return ["must be a string"];
  if (raw.length === 0) return ["is required"];
  if (raw.length > LIMITS.webhookUrlMax) return [`must be at most ${LIMITS.webhookUrlMax} characters`];
  if (/\s/.test(raw)) return ["must not contain spaces or line breaks"];
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return ["must be an absolute URL such as https://example.com/webhooks"];
  }
  const reasons: string[] = [];
  const loopbackOk = opts.allowLoopback === true && isLoopbackHost(u.hostname);
  if (u.protocol !== "https:" && !(loopbackOk && u.protocol === "http:")) reasons.push("must use https");
  if (u.username || u.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw))
    reasons.push("must not contain sign-in details (user:password@)");
  if (raw.includes("#")) reasons.push("must not contain a fragment (#...)");
  const host = u.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (!loopbackOk && (u.protocol === "https:" || u.protocol === "http:")) {
    const kind = isIP(host);
    let problem: string | undefined;
    if (!host) problem = "a missing host";
    else if (kind === 4) problem = v4Problem(host);
    else if (kind === 6) problem = v6Problem(host);
    else if (host === "localhost" || host.endsWith(".localhost")) problem = "a loopback address";
    else if (host.endsWith(".local") || host.endsWith(".internal")) problem = "a local network name";
    else if (!host.includes(".")) problem = "a name that is not publicly reachable";
    if (problem) reasons.push(`must point to a publicly reachable host, not ${problem}`);
  }
  return reasons;
}

/**
 * Checks and normalizes eventTypes: at least one supported type, matched case-sensitively,
 * duplicates removed (first occurrence kept), no wildcard.
 */
export function checkEventTypes(
  raw: unknown,
): { ok: true; value: EventType[] } | { ok: false; reasons: string[] } {
  if (!Array.isArray(raw)) return { ok: false, reasons: ["must be an array of event types"] };
  if (raw.length === 0) return { ok: false, reasons: ["must name at least one event type"] };
  const reasons: string[] = [];
  const out: EventType[] = [];
  for (const t of raw) {
    if (typeof t !== "string") reasons.push("must contain only strings");
    else if (t.includes("*")) reasons.push(`"${t}": wildcards are not supported; list each type`);
    else if (!isEventType(t)) {
      const near = EVENT_TYPES.find((x) => x.toLowerCase() === t.toLowerCase());
      reasons.push(
        near
          ? `"${t}" is not a supported type (types are case-sensitive: did you mean "${near}"?)`
          : `"${t}" is not a supported type; supported: ${EVENT_TYPES.join(", ")}`,
      );
    } else if (!out.includes(t)) out.push(t);
  }
  return reasons.length ? { ok: false, reasons } : { ok: true, value: out };
}
