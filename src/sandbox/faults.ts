// Fault injection for reliability tests: latency, 429 with Retry-After, 502, 500 after the write
// was applied, connection resets (before or after the write), stalls; by rate or as a queue of the
// next N faults, optionally only for paths starting with a prefix. And feed faults, which break a
// feed's contract (feedFault below) until cleared: a cursor that loops, a 2-cycle of cursors, ids
// repeated across pages, the feed's order going backwards.

export const FAULT_KINDS = ["429", "502", "500", "reset", "reset-after", "stall"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const FEED_FAULT_KINDS = ["cursor-loop", "cursor-cycle", "repeat-ids", "time-backwards"] as const;
export type FeedFaultKind = (typeof FEED_FAULT_KINDS)[number];

/**
 * A feed that breaks its contract, from the page at feed offset `at` (the number of the feed's items,
 * of the filter, before the page):
 * - cursor-loop: that page's nextCursor is the cursor that fetched it (a page read from the start
 *   is left alone);
 * - cursor-cycle: that page's nextCursor is the cursor of the page before it (offset at - limit, which
 *   must be above 0), so the two pages' cursors point at each other;
 * - repeat-ids: every page from there starts `count` items early (repeating the end of the page
 *   before), and its nextCursor follows on from its own last item;
 * - time-backwards: that page's items are moved back in time (recordedAt, occurredAt), keeping their
 *   spacing, so its first item is one second before the item before the page.
 */
export interface FeedFault {
  feed: "redemptions" | "events";
  kind: FeedFaultKind;
  at: number;
  /** repeat-ids: items repeated on each page (default 10). */
  count?: number | undefined;
}

/** A feed page as a fault makes it: the items [from, to) of the feed and its nextCursor. */
export interface FeedFaultPlan {
  from: number;
  to: number;
  /** The offset whose page's cursor to hand back as nextCursor, "after" (the request's own), or null. */
  next: number | "after" | null;
  /** time-backwards: move the page's times back so its first is one second before the item at from - 1. */
  backwards: boolean;
}

/**
 * What a feed fault does to the page at offset `start` of `size` items (of `total`), read with
 * `after` (undefined: from the start); undefined when it leaves the page alone.
 */
export function feedFault(
  f: FeedFault | undefined,
  page: { start: number; size: number; total: number; after: string | undefined },
): FeedFaultPlan | undefined {
  if (!f) return undefined;
  const { start, size, total, after } = page;
  const natural = (from: number): FeedFaultPlan => {
    const to = Math.min(total, from + size);
    return { from, to, next: to < total ? to : null, backwards: false };
  };
  const plan = natural(start);
  if (f.kind === "repeat-ids" && start >= f.at && start > 0)
    return natural(Math.max(0, start - (f.count ?? 10)));
  if (start !== f.at || plan.to === plan.from) return undefined;
  if (f.kind === "cursor-loop" && after !== undefined) return { ...plan, next: "after" };
  if (f.kind === "cursor-cycle" && start > size) return { ...plan, next: start - size };
  if (f.kind === "time-backwards" && start > 0) return { ...plan, backwards: true };
  return undefined;
}

export interface FaultConfig {
  /** Added to every API request, in milliseconds. */
  latencyMs: number;
  /** Probability per request of each fault (0..1). */
  rates: Partial<Record<FaultKind, number>>;
  /** Faults for the next matching requests, in order (consumed first). */
  next: FaultKind[];
  /** Only requests whose path (below /api/partner/v1) starts with this are affected. */
  pathPrefix?: string | undefined;
  /** Only requests with this method are affected. */
  method?: string | undefined;
  /** How long a stall holds the request before dropping the connection. */
  stallMs: number;
  /** Seconds sent in Retry-After on an injected 429. */
  retryAfterSeconds: number;
  /** Requests per second per key before 429 rate_limited; 0 = unlimited. */
  rateLimit: number;
  /** A feed that breaks its contract until cleared (not subject to pathPrefix/method). */
  feed?: FeedFault | undefined;
}

function defaultFaults(): FaultConfig {
  return { latencyMs: 0, rates: {}, next: [], stallMs: 15_000, retryAfterSeconds: 1, rateLimit: 0 };
}

/** Parses "--faults 429=0.1,502=0.05,500=0.02,reset=0.01,stall=0.01" (":" also accepted). */
export function parseFaultSpec(spec: string): Partial<Record<FaultKind, number>> {
  const out: Partial<Record<FaultKind, number>> = {};
  for (const part of spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [kind, rate] = part.split(/[=:]/);
    if (!FAULT_KINDS.includes(kind as FaultKind)) {
      throw new Error(`unknown fault "${kind}" (known: ${FAULT_KINDS.join(", ")})`);
    }
    const r = Number(rate);
    if (!(r >= 0 && r <= 1)) throw new Error(`fault rate for ${kind} must be between 0 and 1`);
    out[kind as FaultKind] = r;
  }
  return out;
}

export class Faults {
  config: FaultConfig;
  /** The configuration the sandbox started with (what clear() returns to). */
  private readonly initial: FaultConfig;
  private readonly windows = new Map<string, { second: number; count: number }>();
  private readonly random: () => number;

  constructor(config: Partial<FaultConfig> = {}, random: () => number = Math.random) {
    this.initial = normalize({ ...defaultFaults(), ...config });
    this.config = cloneConfig(this.initial);
    this.random = random;
  }

  /** Changes the fields given; fields left out keep their value. */
  set(config: Partial<FaultConfig>): void {
    const defined = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
    this.config = normalize({ ...this.config, ...defined });
  }

  /** Back to the start-up configuration (the queue emptied, rate windows forgotten). */
  clear(): void {
    this.config = cloneConfig(this.initial);
    this.windows.clear();
  }

  /** Over the per-key request rate? */
  rateLimited(key: string, nowMs: number): boolean {
    if (!this.config.rateLimit) return false;
    const second = Math.floor(nowMs / 1000);
    const w = this.windows.get(key);
    if (!w || w.second !== second) {
      this.windows.set(key, { second, count: 1 });
      return false;
    }
    w.count++;
    return w.count > this.config.rateLimit;
  }

  /** Picks the fault for this request, if any. */
  pick(method: string, path: string): FaultKind | undefined {
    const c = this.config;
    if (c.pathPrefix && !path.startsWith(c.pathPrefix)) return undefined;
    if (c.method && c.method !== method.toUpperCase()) return undefined;
    if (c.next.length) return c.next.shift();
    for (const kind of FAULT_KINDS) {
      const r = c.rates[kind];
      if (r && this.random() < r) return kind;
    }
    return undefined;
  }
}

function normalize(c: FaultConfig): FaultConfig {
  return {
    ...c,
    method: c.method ? c.method.toUpperCase() : undefined,
    pathPrefix: c.pathPrefix || undefined,
  };
}

function cloneConfig(c: FaultConfig): FaultConfig {
  return { ...c, rates: { ...c.rates }, next: [...c.next] };
}
