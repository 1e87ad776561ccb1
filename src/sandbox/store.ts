// The sandbox's state, its whole shape in one place: organizations with their keys, brands, creators
// and offers, the event log, and the typed areas (campaigns with links and jobs, traffic, webhooks).
// Plain Maps, arrays and records, so persist.ts can write it as JSON documents; the logic lives in
// domain/. Indexes derived from the state are built on first use and never persisted.
import type { AssignmentScope, JobStatus } from "../spec/links.js";
import type { CampaignStatus } from "../spec/campaigns.js";
import type { Creator } from "../spec/creators.js";
import type { EventType } from "../spec/events.js";
import type { Offer } from "../spec/offers.js";
import type { FailureCategory } from "../spec/webhooks.js";
import { Traffic } from "./domain/traffic.js";

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
  /** The areas, each created on first use by its accessor below. */
  areas: OrgAreas;
  /** Index: the event log sorted by (occurredAt, id) (handlers/events.ts keeps it; not persisted). */
  readonly eventsSorted?: SortedEvents;
}

export interface SortedEvents {
  /** The log it was built from, its length then and its first event (a change of these rebuilds it). */
  source: EventEnvelope[];
  seen: number;
  first: EventEnvelope | undefined;
  sorted: EventEnvelope[];
}

/**
 * The areas of an organization. They stay one object under `areas` because that is their place in
 * the data dir's files (persist.ts keeps a big value, such as the traffic, as a blob of this object).
 */
export interface OrgAreas {
  campaigns?: CampaignsArea;
  /** As loaded from a data dir: the snapshot (Traffic.toJSON) until trafficOf revives it. */
  traffic?: Traffic | Record<string, unknown>;
  webhooks?: WebhooksArea;
}

// ---- campaigns area ------------------------------------------------------------------------

export interface CampaignRecord {
  id: string;
  /** Creation sequence within the organization: the tie-breaker of "newest first". */
  seq: number;
  externalReference: string | null;
  name: string;
  status: CampaignStatus;
  /** Offer snapshot at creation; the view prefers the live offer's title and brand name. */
  offer: { baseGs1: string; title: string | null; brand: { id: string; name: string } };
  dates: { from: string; through: string };
  retailer: { emailDomain: string; name: string | null } | null;
  /** Canonical decimal text (see spec/campaigns.ts canonicalDecimal). */
  commission: { rate: string; estimatedUnitSalePrice: string };
  /** Mutable all-time counters; remaining is derived. */
  codes: { limit: number; issued: number; redeemed: number; testCodes: number };
  /** false once the first code is prepared (set by the traffic area). */
  canChangeRetailer: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface LinkRecord {
  externalId: string;
  campaignId: string;
  /** `ABCD-2345`, unique across the sandbox. */
  shortCode: string;
  /** Secret path part of statsUrl. */
  statsToken: string;
  active: boolean;
  assignedAt: string;
  deactivatedAt: string | null;
}

export interface JobRecord {
  id: string;
  campaignId: string;
  status: JobStatus;
  scope: AssignmentScope;
  totalCount: number;
  assignedCount: number;
  failedCount: number;
  lastError: string | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  // Internal progress (persisted so a restarted sandbox resumes the job):
  /** Creators to link, in processing order. */
  pending: string[];
  /** Index of the next pending id. */
  cursor: number;
  /** Ids unmatched at selection (unknown or inactive); counted as failed when processing starts. */
  unmatchedIds: string[];
  /** Ids that could not be linked (unmatched included), in the order found. */
  failedIds: string[];
  /** Set by the fail-next-job control route: this job fails part-way. */
  failPlanned: boolean;
}

export interface CampaignsArea {
  seq: number;
  campaigns: Map<string, CampaignRecord>;
  /** campaignId → externalId → link. */
  links: Map<string, Map<string, LinkRecord>>;
  shortCodes: Map<string, { campaignId: string; externalId: string }>;
  statsTokens: Map<string, { campaignId: string; externalId: string }>;
  jobs: Map<string, JobRecord>;
  /** Campaign ids whose next assignment job is to fail (control route). */
  failNextJob: Set<string>;
  /** Index: campaign id by externalReference (domain/campaigns.ts builds it; not persisted). */
  readonly byReference?: Map<string, string>;
}

// ---- webhooks area -------------------------------------------------------------------------

export interface EndpointRecord {
  id: string;
  url: string;
  eventTypes: EventType[];
  active: boolean;
  failingSince: string | null;
  lastDeliveredAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Secrets live only here (and in the 0600 snapshot); they are returned only on create and rotate. */
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAtMs: number | null;
}

export interface DeliveryRecord {
  id: string;
  endpointId: string;
  /** Creation order across the organization (newest first = highest seq). */
  seq: number;
  eventId: string;
  eventType: string;
  occurredAt: string;
  sample: boolean;
  /** The envelope exactly as it is sent (serialized once, when queued). */
  body: string;
  attempts: number;
  lastAttemptAt: string | null;
  /** Sandbox-clock ms when the next attempt is due; null once delivered or finally failed. */
  nextAttemptAtMs: number | null;
  deliveredAt: string | null;
  failedAt: string | null;
  lastStatusCode: number | null;
  lastFailureCategory: FailureCategory | null;
}

export interface WebhooksArea {
  endpoints: Map<string, EndpointRecord>;
  deliveries: Map<string, DeliveryRecord>;
  seq: number;
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

/** The campaigns area (campaigns, their links and assignment jobs), created on first use. */
export function campaignsArea(state: OrgState): CampaignsArea {
  state.areas.campaigns ??= {
    seq: 0,
    campaigns: new Map(),
    links: new Map(),
    shortCodes: new Map(),
    statsTokens: new Map(),
    jobs: new Map(),
    failNextJob: new Set(),
  };
  return state.areas.campaigns;
}

/** The organization's traffic, created on first use; revived from its snapshot once after a load. */
export function trafficOf(state: OrgState): Traffic {
  const v = state.areas.traffic;
  if (v instanceof Traffic) return v;
  const t = v === undefined ? new Traffic() : Traffic.fromJSON(v);
  state.areas.traffic = t;
  return t;
}

/** The webhooks area (endpoints and deliveries), created on first use. */
export function webhooksArea(state: OrgState): WebhooksArea {
  state.areas.webhooks ??= { endpoints: new Map(), deliveries: new Map(), seq: 0 };
  return state.areas.webhooks;
}

/** The webhooks area if it exists (no creation), for the delivery engine's scans. */
export function existingWebhooksArea(state: OrgState): WebhooksArea | undefined {
  return state.areas.webhooks;
}
