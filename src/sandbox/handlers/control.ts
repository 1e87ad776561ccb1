// The sandbox's own control routes under /_sandbox (not part of the Partner API): reset, clock,
// faults, brand access and offer state. Authenticated with any key of the organization they act on.
import { z } from "zod";
import { issueDetails } from "../../spec/creators.js";
import { parseDurationMs } from "../../spec/duration.js";
import { OFFER_STATES } from "../../spec/offers.js";
import { invalid, notFound } from "../errors.js";
import { FAULT_KINDS, FEED_FAULT_KINDS } from "../faults.js";
import { ok, type Handlers, type SandboxRequest } from "../http.js";
import { seedStore } from "../seed.js";

export function parseBody<T>(schema: z.ZodType<T>, req: SandboxRequest): T {
  const r = schema.safeParse(req.body ?? {});
  if (!r.success) throw invalid("The request body is not valid.", issueDetails(r.error));
  return r.data;
}

const MAX_OFFSET_MS = 100 * 366 * 86_400_000;

/** A JSON number of milliseconds, or a duration such as "1h30m" (src/spec/duration.ts; plain digits refused). */
export function durationMs(v: string | number): number {
  if (typeof v === "number") return v;
  const ms = parseDurationMs(v, { bareMilliseconds: false });
  if (ms === undefined)
    throw invalid(`"${v}" is not a duration like 90s, 5m, 2h or 1d.`, { duration: ["must be a duration"] });
  return ms;
}

const FaultBody = z.strictObject({
  latencyMs: z.number().int().min(0).optional(),
  rates: z.partialRecord(z.enum(FAULT_KINDS), z.number().min(0).max(1)).optional(),
  next: z.array(z.enum(FAULT_KINDS)).optional(),
  pathPrefix: z.string().nullable().optional(),
  method: z.string().nullable().optional(),
  stallMs: z.number().int().min(0).optional(),
  retryAfterSeconds: z.number().int().min(0).optional(),
  rateLimit: z.number().int().min(0).optional(),
  feed: z
    .strictObject({
      feed: z.enum(["redemptions", "events"]),
      kind: z.enum(FEED_FAULT_KINDS),
      at: z.number().int().min(0),
      count: z.number().int().min(1).optional(),
    })
    .nullable()
    .optional(),
});

export const controlHandlers = {
  clock: ({ sb }) => ok({ now: sb.clock.iso(), offsetMs: sb.clock.offsetMs }),
  // The store and whether the event log holds every event (a simulate with events: false leaves some out).
  status: ({ sb }) => {
    const left = sb.store.eventsIncomplete;
    return ok({
      now: sb.clock.iso(),
      store: sb.store.path,
      eventLog: left ? "incomplete" : "complete",
      eventsLeftOut: left ? { since: left.since, items: left.items } : null,
    });
  },
  advance: (req) => {
    const body = parseBody(z.object({ duration: z.union([z.string(), z.number().int().min(0)]) }), req);
    const ms = durationMs(body.duration);
    // Keep sandbox time representable (and sensible): at most 100 years ahead of real time.
    if (req.sb.clock.offsetMs + ms > MAX_OFFSET_MS) {
      throw invalid("The sandbox clock can be at most 100 years ahead of real time.", {
        duration: ["is too large"],
      });
    }
    req.sb.clock.advance(ms);
    return ok({ now: req.sb.clock.iso(), offsetMs: req.sb.clock.offsetMs });
  },
  reset: (req) => {
    const body = parseBody(z.object({ seed: z.enum(["demo", "empty"]).optional() }), req);
    seedStore(body.seed ?? "demo", Date.now(), req.sb.store);
    req.sb.clock.offsetMs = 0;
    req.sb.store.eventsIncomplete = undefined;
    return ok({ reset: true, seed: body.seed ?? "demo" });
  },
  faults: ({ sb }) => ok(sb.faults.config),
  // Fields left out keep their value; pathPrefix/method null clears the filter.
  setFaults: (req) => {
    const body = parseBody(FaultBody, req);
    const { faults } = req.sb;
    const { pathPrefix, method, feed, ...rest } = body;
    faults.set(rest);
    if (feed !== undefined) faults.config.feed = feed ?? undefined;
    if (pathPrefix !== undefined) faults.config.pathPrefix = pathPrefix || undefined;
    if (method !== undefined) faults.config.method = method ? method.toUpperCase() : undefined;
    return ok(faults.config);
  },
  clearFaults: ({ sb }) => {
    sb.faults.clear();
    return ok(sb.faults.config);
  },
  brandAccess: (req) => {
    const body = parseBody(z.object({ access: z.boolean() }), req);
    const brand = req.state.brands.edit(req.params.brandId!, (b) => {
      b.access = body.access;
    });
    if (!brand) throw notFound("Brand");
    return ok(brand);
  },
  setOffer: (req) => {
    const body = parseBody(
      z.object({
        state: z.enum(OFFER_STATES).optional(),
        codesAvailable: z.number().int().min(0).nullable().optional(),
      }),
      req,
    );
    const offer = req.state.offers.edit(req.params.baseGs1!, (o) => {
      if (body.state) {
        o.state = body.state;
        o.canDistribute = body.state === "available";
      }
      if (body.codesAvailable !== undefined) o.codesAvailable = body.codesAvailable;
      o.lastUpdatedAt = req.sb.clock.iso();
    });
    if (!offer) throw notFound("Offer");
    return ok(offer);
  },
} satisfies Handlers;
