// Client functions for the sandbox's own control routes under /_sandbox (not part of the Partner
// API): clock, advance, reset, faults, brand access, offer state, the organization's time zone and
// alert recipients, a failing next job, link views and simulated traffic. They work
// against the embedded sandbox and against a running `partner-cli sandbox start`.
import { z } from "zod";
import { ApiError } from "../errors.js";
import type { ApiClient, RequestSpec } from "./client.js";
import { seg } from "./client.js";

export const CONTROL_PREFIX = "/_sandbox";

const Clock = z.looseObject({ now: z.string(), offsetMs: z.number() });
export type SandboxClockState = z.infer<typeof Clock>;

const Reset = z.looseObject({ reset: z.boolean(), seed: z.string() });
export type SandboxResetResult = z.infer<typeof Reset>;

const Record_ = z.record(z.string(), z.unknown());

export interface FaultSettings {
  latencyMs?: number;
  rates?: Partial<Record<"429" | "502" | "500" | "reset" | "reset-after" | "stall", number>>;
  next?: ("429" | "502" | "500" | "reset" | "reset-after" | "stall")[];
  pathPrefix?: string | null;
  method?: string | null;
  stallMs?: number;
  retryAfterSeconds?: number;
  rateLimit?: number;
  /** A feed that breaks its contract (src/sandbox/faults.ts FeedFault); null clears it. */
  feed?: { feed: "redemptions" | "events"; kind: string; at: number; count?: number } | null;
}

export interface SimulateRequest {
  campaign?: string | undefined;
  views?: number | undefined;
  claims?: number | undefined;
  redemptions?: number | undefined;
  testCodes?: number | undefined;
  testRedemptions?: number | undefined;
  exclusions?: number | undefined;
  restorations?: number | undefined;
  reason?: string | undefined;
  days?: number | undefined;
  events?: boolean | undefined;
  seed?: number | undefined;
}

/** A control request; a 404 for the route itself gets a hint that the target may not be a sandbox. */
async function control<T>(c: ApiClient, spec: Omit<RequestSpec<T>, "prefix">): Promise<T> {
  try {
    return await c.call({ ...spec, prefix: CONTROL_PREFIX });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && /^No route/.test(err.message)) {
      throw err.withHint(
        `${c.baseUrl} does not serve ${CONTROL_PREFIX}${spec.path}: it is not a partner-cli sandbox, or a version without this route.`,
      );
    }
    throw err;
  }
}

export function getSandboxClock(c: ApiClient): Promise<SandboxClockState> {
  return control(c, { method: "GET", path: "/clock", retry: "read", schema: Clock as never });
}

export interface SandboxStatus {
  now: string;
  /** The database file, or ":memory:". */
  store: string;
  eventLog: "complete" | "incomplete";
  eventsLeftOut: { since: string; items: number } | null;
}

/** The sandbox's store and whether its event log holds every event (GET /_sandbox/status). */
export function getSandboxStatus(c: ApiClient): Promise<SandboxStatus> {
  return control(c, { method: "GET", path: "/status", retry: "read" });
}

/** Moves the sandbox clock forward. Not repeated after an uncertain outcome (each call moves it again). */
export function advanceSandboxClock(c: ApiClient, durationMs: number): Promise<SandboxClockState> {
  return control(c, {
    method: "POST",
    path: "/advance",
    body: { duration: durationMs },
    retry: "create",
    schema: Clock as never,
  });
}

/** Wipes the sandbox's data back to a seed; keys and organization ids are kept. Safe to repeat. */
export function resetSandbox(c: ApiClient, seed?: "demo" | "empty"): Promise<SandboxResetResult> {
  return control(c, {
    method: "POST",
    path: "/reset",
    body: seed ? { seed } : {},
    retry: "idempotent",
    schema: Reset as never,
  });
}

export function getSandboxFaults(c: ApiClient): Promise<Record<string, unknown>> {
  return control(c, { method: "GET", path: "/faults", retry: "read", schema: Record_ as never });
}

/** Changes fault settings; fields left out keep their value (null clears pathPrefix/method). */
export function setSandboxFaults(c: ApiClient, settings: FaultSettings): Promise<Record<string, unknown>> {
  return control(c, {
    method: "POST",
    path: "/faults",
    body: settings,
    retry: "idempotent",
    schema: Record_ as never,
  });
}

/** Back to the fault settings the sandbox started with. */
export function clearSandboxFaults(c: ApiClient): Promise<Record<string, unknown>> {
  return control(c, { method: "DELETE", path: "/faults", retry: "idempotent", schema: Record_ as never });
}

export function setSandboxBrandAccess(
  c: ApiClient,
  brandId: string,
  access: boolean,
): Promise<Record<string, unknown>> {
  return control(c, {
    method: "POST",
    path: `/brands/${seg(brandId)}/access`,
    body: { access },
    retry: "idempotent",
    schema: Record_ as never,
  });
}

export function setSandboxOffer(
  c: ApiClient,
  baseGs1: string,
  change: { state?: string; codesAvailable?: number | null },
): Promise<Record<string, unknown>> {
  return control(c, {
    method: "POST",
    path: `/offers/${seg(baseGs1)}`,
    body: change,
    retry: "idempotent",
    schema: Record_ as never,
  });
}

/** Simulated shopper traffic (POST /_sandbox/simulate). Not repeated: each call adds traffic. */
export function simulateTraffic(c: ApiClient, req: SimulateRequest): Promise<Record<string, unknown>> {
  const body = Object.fromEntries(Object.entries(req).filter(([, v]) => v !== undefined));
  return control(c, { method: "POST", path: "/simulate", body, retry: "create", schema: Record_ as never });
}

/** The organization's reporting time zone and supply-alert recipients (none: no supply events). */
export function setSandboxOrganization(
  c: ApiClient,
  change: { reportingTimeZone?: string; alertRecipients?: string[] },
): Promise<Record<string, unknown>> {
  return control(c, {
    method: "POST",
    path: "/organization",
    body: change,
    retry: "idempotent",
    schema: Record_ as never,
  });
}

/** The next assignment job queued for the campaign fails part-way (`fail` false: it no longer will). */
export function setSandboxFailNextJob(
  c: ApiClient,
  campaignId: string,
  fail: boolean,
): Promise<Record<string, unknown>> {
  return control(c, {
    method: "POST",
    path: `/campaigns/${seg(campaignId)}/fail-next-job`,
    body: { fail },
    retry: "idempotent",
    schema: Record_ as never,
  });
}

/** One share-link open by a shopper (counted once per origin per link per reporting day). */
export function recordSandboxView(
  c: ApiClient,
  shortCode: string,
  origin?: string,
): Promise<Record<string, unknown>> {
  return control(c, {
    method: "POST",
    path: "/views",
    body: origin === undefined ? { shortCode } : { shortCode, origin },
    retry: "create",
    schema: Record_ as never,
  });
}
