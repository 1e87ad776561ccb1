// The sandbox's state: organizations with their keys, brands, creators and offers, the event log,
// and per-area state that later areas keep under `areas` (typed by their own accessors).
// Plain Maps and arrays, so a snapshot is one JSON document (see persist.ts).
import type { Creator } from "../spec/creators.js";
import type { Offer } from "../spec/offers.js";

export interface Organization {
  id: string;
  name: string;
  reportingTimeZone: string;
  /** false: every key of the organization answers 401. */
  active: boolean;
  /** Emails that receive supply alerts; supply events exist only when this is non-empty. */
  alertRecipients: string[];
}

export interface KeyRecord {
  key: string;
  name: string;
  orgId: string;
  canWrite: boolean;
  revoked: boolean;
}

export interface BrandRecord {
  id: string;
  name: string;
  /** false once the organization lost access to the brand (its campaigns become view-only). */
  access: boolean;
}

export interface EventEnvelope {
  id: string;
  type: string;
  occurredAt: string;
  organizationId: string;
  sample: boolean;
  data: Record<string, unknown>;
}

export interface OrgState {
  org: Organization;
  brands: Map<string, BrandRecord>;
  creators: Map<string, Creator>;
  offers: Map<string, Offer>;
  /** The event log, in append order (occurredAt never decreases on the sandbox clock). */
  events: EventEnvelope[];
  /** State of later areas (campaigns, traffic, webhooks...), each behind its own typed accessor. */
  areas: Record<string, unknown>;
}

export interface Store {
  orgs: Map<string, OrgState>;
  keys: Map<string, KeyRecord>;
  /** Sandbox clock offset, persisted with the data. */
  clockOffsetMs: number;
  /** The keys `sandbox start` prints. */
  defaultKeys: { writeKey: string; readOnlyKey: string };
}

export function newOrgState(org: Organization): OrgState {
  return { org, brands: new Map(), creators: new Map(), offers: new Map(), events: [], areas: {} };
}

/** Typed access to one area's state, created on first use. */
export function area<T>(state: OrgState, name: string, init: () => T): T {
  let v = state.areas[name] as T | undefined;
  if (v === undefined) {
    v = init();
    state.areas[name] = v;
  }
  return v;
}
