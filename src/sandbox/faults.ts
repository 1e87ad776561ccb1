// Fault injection for reliability tests: latency, 429 with Retry-After, 502, 500 after the write
// was applied, connection resets (before or after the write), stalls; by rate or as a queue of the
// next N faults, optionally only for paths starting with a prefix.

export const FAULT_KINDS = ["429", "502", "500", "reset", "reset-after", "stall"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

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
}

export function defaultFaults(): FaultConfig {
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
