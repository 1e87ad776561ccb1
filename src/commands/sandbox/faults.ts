// sandbox faults [settings] [--clear]: the target sandbox's fault injection, changed while it runs
// (sandbox start --latency/--faults/--rate-limit set it at start-up). Settings left out keep their
// value; --clear goes back to the start-up settings first. Without any option: prints the settings.
import {
  type FaultSettings,
  clearSandboxFaults,
  getSandboxFaults,
  setSandboxFaults,
} from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import { FAULT_KINDS, FEED_FAULT_KINDS, type FaultKind, parseFaultSpec } from "../../sandbox/faults.js";

export interface SandboxFaultsOptions {
  latency?: number | undefined;
  /** KIND=RATE,... as for sandbox start --faults. */
  rates?: string | undefined;
  /** KIND,KIND,...: the faults of the next matching requests, in order. */
  next?: string | undefined;
  /** Only API paths starting with this ("" or "any": every path). */
  pathPrefix?: string | undefined;
  /** Only this method ("any": every method). */
  method?: string | undefined;
  stall?: number | undefined;
  retryAfter?: number | undefined;
  rateLimit?: number | undefined;
  /** FEED:KIND@OFFSET[xCOUNT], or "off". */
  feedFault?: string | undefined;
  clear?: boolean | undefined;
}

const usage = (message: string, hint?: string) => new UsageError(`${message} Nothing was changed.`, hint);

function rates(spec: string | undefined): FaultSettings["rates"] {
  if (spec === undefined) return undefined;
  try {
    return parseFaultSpec(spec);
  } catch (err) {
    throw usage(
      `--rates: ${(err as Error).message}.`,
      'Use KIND=RATE pairs, for example "--rates 429=0.1,502=0.05".',
    );
  }
}

function nextFaults(spec: string | undefined): FaultKind[] | undefined {
  if (spec === undefined) return undefined;
  const kinds = spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = kinds.find((k) => !(FAULT_KINDS as readonly string[]).includes(k));
  if (bad !== undefined) throw usage(`--next: unknown fault "${bad}" (known: ${FAULT_KINDS.join(", ")}).`);
  return kinds as FaultKind[];
}

/** "events:cursor-loop@200", "redemptions:repeat-ids@100x5", or "off" (null). */
function parseFeedFault(spec: string | undefined): FaultSettings["feed"] {
  if (spec === undefined) return undefined;
  if (spec.trim().toLowerCase() === "off") return null;
  const m = /^(redemptions|events):([a-z-]+)@(\d+)(?:x(\d+))?$/.exec(spec.trim());
  if (!m || !(FEED_FAULT_KINDS as readonly string[]).includes(m[2]!))
    throw usage(
      `--feed-fault "${spec}" is not FEED:KIND@OFFSET[xCOUNT] with FEED redemptions or events and KIND one of ${FEED_FAULT_KINDS.join(", ")}.`,
      "Example: --feed-fault events:cursor-loop@200, --feed-fault redemptions:repeat-ids@100x5, or --feed-fault off",
    );
  const count = m[4] === undefined ? undefined : Number(m[4]);
  if (count === 0) throw usage(`--feed-fault "${spec}": the count of repeated items must be 1 or more.`);
  return {
    feed: m[1] as "redemptions" | "events",
    kind: m[2]!,
    at: Number(m[3]),
    ...(count ? { count } : {}),
  };
}

const anyOr = (v: string | undefined) =>
  v === undefined ? undefined : ["", "any"].includes(v.trim()) ? null : v;

const methodOf = (m: string | null | undefined) => (typeof m === "string" ? m.trim().toUpperCase() : m);

function settingsOf(o: SandboxFaultsOptions): FaultSettings {
  const s: FaultSettings = {
    latencyMs: o.latency,
    rates: rates(o.rates),
    next: nextFaults(o.next),
    pathPrefix: anyOr(o.pathPrefix),
    method: methodOf(anyOr(o.method)),
    stallMs: o.stall,
    retryAfterSeconds: o.retryAfter,
    rateLimit: o.rateLimit,
    feed: parseFeedFault(o.feedFault),
  };
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as FaultSettings;
}

export async function sandboxFaultsRun(opts: SandboxFaultsOptions, ctx: Context): Promise<void> {
  const settings = settingsOf(opts);
  const api = await ctx.api();
  let config: Record<string, unknown> | undefined;
  if (opts.clear) config = await clearSandboxFaults(api);
  if (Object.keys(settings).length > 0) config = await setSandboxFaults(api, settings);
  config ??= await getSandboxFaults(api);
  const rateText = Object.entries((config.rates ?? {}) as Record<string, number>)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const feed = config.feed as { feed: string; kind: string; at: number; count?: number } | undefined;
  printRecord(ctx.io, config, [
    ["latencyMs", config.latencyMs],
    ["rates", rateText],
    ["next", ((config.next ?? []) as string[]).join(",")],
    ["pathPrefix", config.pathPrefix ?? ""],
    ["method", config.method ?? ""],
    ["stallMs", config.stallMs],
    ["retryAfterSeconds", config.retryAfterSeconds],
    ["rateLimit", config.rateLimit],
    ["feedFault", feed ? `${feed.feed}:${feed.kind}@${feed.at}${feed.count ? `x${feed.count}` : ""}` : ""],
  ]);
}
