// Campaigns, share links and assignment jobs: the state of the "campaigns" area and its pure logic.
//
// Accessor API for other areas (traffic, redemptions, reports) — keep these names stable:
//   campaignsOf(state)            Map<campaignId, CampaignRecord>, in creation order
//   findCampaign(state, id)       CampaignRecord | undefined
//   campaignView(state, rec)      the API Campaign object (allowedStatuses, codes.remaining, ... computed)
//   campaignReference(rec)        CampaignReference {id, externalReference, name}
//   brandOf(state, rec)           {id, name} of the campaign's brand (BrandReference)
//   isViewOnly(state, rec)        true once the organization lost access to the campaign's brand
//   linksOf(state, campaignId)    Map<externalId, LinkRecord> (empty map for a campaign without links)
//   linkView(state, campaignId, link)   the API Share link object
//   findLinkByShortCode(state, code)    {campaign, link} | undefined (code with or without dash/space, any case)
//   findLinkByStatsToken(state, token)  {campaign, link} | undefined
//
// How the traffic area updates codes (CampaignRecord.codes holds plain mutable counters; remaining is
// derived as limit - issued - testCodes, so limit = issued + testCodes + remaining always holds):
//   - a shopper receives a new code through a link:   recordCodesIssued(state, campaignId, 1)
//   - staff prepare test codes:                        recordTestCodes(state, campaignId, n)
//   - a verified redemption is counted / excluded:     recordRedeemed(state, campaignId, +1 / -1)
//   Each of the first two also sets canChangeRetailer = false ("false once the first code is
//   prepared"); markCodePrepared(state, campaignId) does only that, for a code prepared before it is
//   handed out. None of them touches updatedAt (counters are not edits). Call sb.markDirty() after.
//   Do not hand out codes when codesRemaining(rec) <= 0.
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import {
  type Campaign,
  type CampaignReference,
  type CampaignStatus,
  estimatedPerRedemption,
  NEXT_STATUSES,
} from "../../spec/campaigns.js";
import type { AssignmentJob, AssignmentScope, JobStatus, ShareLink } from "../../spec/links.js";
import { normalizeShortCode } from "../../spec/links.js";
import type { Sandbox } from "../sandbox.js";
import { area, type OrgState } from "../store.js";

/** Fictional public hosts of share and stats pages (handlers do not know the sandbox's own URL). */
export const SHARE_HOST = "https://go.sandbox.partner.example";
export const STATS_HOST = "https://stats.sandbox.partner.example";

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
}

export function campaignsArea(state: OrgState): CampaignsArea {
  return area<CampaignsArea>(state, "campaigns", () => ({
    seq: 0,
    campaigns: new Map(),
    links: new Map(),
    shortCodes: new Map(),
    statsTokens: new Map(),
    jobs: new Map(),
    failNextJob: new Set(),
  }));
}

export function campaignsOf(state: OrgState): Map<string, CampaignRecord> {
  return campaignsArea(state).campaigns;
}

export function findCampaign(state: OrgState, id: string): CampaignRecord | undefined {
  return campaignsArea(state).campaigns.get(id);
}

export function linksOf(state: OrgState, campaignId: string): Map<string, LinkRecord> {
  return campaignsArea(state).links.get(campaignId) ?? new Map();
}

export function brandOf(state: OrgState, rec: CampaignRecord): { id: string; name: string } {
  const b = state.brands.get(rec.offer.brand.id);
  return { id: rec.offer.brand.id, name: b?.name ?? rec.offer.brand.name };
}

export function isViewOnly(state: OrgState, rec: CampaignRecord): boolean {
  return state.brands.get(rec.offer.brand.id)?.access !== true;
}

export function codesRemaining(rec: CampaignRecord): number {
  return rec.codes.limit - rec.codes.issued - rec.codes.testCodes;
}

export function campaignReference(rec: CampaignRecord): CampaignReference {
  return { id: rec.id, externalReference: rec.externalReference, name: rec.name };
}

export function allowedStatuses(state: OrgState, rec: CampaignRecord): CampaignStatus[] {
  return isViewOnly(state, rec) ? [] : [...NEXT_STATUSES[rec.status]];
}

export function campaignView(state: OrgState, rec: CampaignRecord): Campaign {
  const live = state.offers.get(rec.offer.baseGs1);
  const { rate, estimatedUnitSalePrice } = rec.commission;
  return {
    id: rec.id,
    externalReference: rec.externalReference,
    name: rec.name,
    status: rec.status,
    offer: {
      baseGs1: rec.offer.baseGs1,
      title: live ? live.title : rec.offer.title,
      brand: brandOf(state, rec),
    },
    dates: { ...rec.dates },
    retailer: rec.retailer ? { ...rec.retailer } : null,
    commission: {
      rate: Number(rate),
      estimatedUnitSalePrice: Number(estimatedUnitSalePrice),
      estimatedPerRedemption: Number(estimatedPerRedemption(rate, estimatedUnitSalePrice)),
    },
    codes: { ...rec.codes, remaining: codesRemaining(rec) },
    allowedStatuses: allowedStatuses(state, rec),
    canChangeRetailer: rec.canChangeRetailer,
    createdAt: rec.createdAt,
    updatedAt: rec.updatedAt,
  };
}

// ---- code counters (for the traffic area) ----------------------------------------------------

function mustFind(state: OrgState, campaignId: string): CampaignRecord {
  const rec = findCampaign(state, campaignId);
  if (!rec) throw new Error(`no campaign ${campaignId}`);
  return rec;
}

export function markCodePrepared(state: OrgState, campaignId: string): void {
  mustFind(state, campaignId).canChangeRetailer = false;
}

export function recordCodesIssued(state: OrgState, campaignId: string, count = 1): void {
  const rec = mustFind(state, campaignId);
  rec.codes.issued += count;
  rec.canChangeRetailer = false;
}

export function recordTestCodes(state: OrgState, campaignId: string, count = 1): void {
  const rec = mustFind(state, campaignId);
  rec.codes.testCodes += count;
  rec.canChangeRetailer = false;
}

export function recordRedeemed(state: OrgState, campaignId: string, delta = 1): void {
  const rec = mustFind(state, campaignId);
  rec.codes.redeemed = Math.max(0, rec.codes.redeemed + delta);
}

// ---- links -----------------------------------------------------------------------------------

// Letters and digits without the look-alikes 0/O, 1/I/L.
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

function codeTaken(sb: Sandbox, code: string): boolean {
  for (const org of sb.store.orgs.values()) {
    const a = org.areas.campaigns as CampaignsArea | undefined;
    if (a?.shortCodes.has(code)) return true;
  }
  return false;
}

function newShortCode(sb: Sandbox): string {
  for (;;) {
    let s = "";
    for (let i = 0; i < 8; i++) s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    const code = `${s.slice(0, 4)}-${s.slice(4)}`;
    if (!codeTaken(sb, code)) return code;
  }
}

/** Creates the link of one creator on one campaign (callers check the refusal rules first). */
export function createLink(sb: Sandbox, state: OrgState, campaignId: string, externalId: string): LinkRecord {
  const a = campaignsArea(state);
  let links = a.links.get(campaignId);
  if (!links) {
    links = new Map();
    a.links.set(campaignId, links);
  }
  const link: LinkRecord = {
    externalId,
    campaignId,
    shortCode: newShortCode(sb),
    statsToken: randomBytes(18).toString("base64url"),
    active: true,
    assignedAt: sb.clock.iso(),
    deactivatedAt: null,
  };
  links.set(externalId, link);
  a.shortCodes.set(link.shortCode, { campaignId, externalId });
  a.statsTokens.set(link.statsToken, { campaignId, externalId });
  return link;
}

export function linkView(state: OrgState, campaignId: string, link: LinkRecord): ShareLink {
  const creator = state.creators.get(link.externalId);
  return {
    creator: { externalId: link.externalId, name: creator?.name ?? link.externalId },
    campaignId,
    shareUrl: `${SHARE_HOST}/${link.shortCode}`,
    shortCode: link.shortCode,
    statsUrl: `${STATS_HOST}/${link.statsToken}`,
    active: link.active,
    activeOnRoster: creator?.active === true,
    assignedAt: link.assignedAt,
    deactivatedAt: link.deactivatedAt,
  };
}

function resolve(state: OrgState, ref: { campaignId: string; externalId: string } | undefined) {
  if (!ref) return undefined;
  const campaign = findCampaign(state, ref.campaignId);
  const link = linksOf(state, ref.campaignId).get(ref.externalId);
  return campaign && link ? { campaign, link } : undefined;
}

export function findLinkByShortCode(
  state: OrgState,
  code: string,
): { campaign: CampaignRecord; link: LinkRecord } | undefined {
  const norm = normalizeShortCode(code);
  return norm ? resolve(state, campaignsArea(state).shortCodes.get(norm)) : undefined;
}

export function findLinkByStatsToken(
  state: OrgState,
  token: string,
): { campaign: CampaignRecord; link: LinkRecord } | undefined {
  return resolve(state, campaignsArea(state).statsTokens.get(token));
}

// ---- campaigns -------------------------------------------------------------------------------

export function newCampaignRecord(
  state: OrgState,
  init: Omit<CampaignRecord, "id" | "seq" | "status" | "codes" | "canChangeRetailer" | "updatedAt"> & {
    codeLimit: number;
  },
): CampaignRecord {
  const a = campaignsArea(state);
  const { codeLimit, ...rest } = init;
  const rec: CampaignRecord = {
    ...rest,
    id: randomUUID(),
    seq: ++a.seq,
    status: "draft",
    codes: { limit: codeLimit, issued: 0, redeemed: 0, testCodes: 0 },
    canChangeRetailer: true,
    updatedAt: init.createdAt,
  };
  a.campaigns.set(rec.id, rec);
  return rec;
}

// ---- assignment jobs -------------------------------------------------------------------------

export function jobView(job: JobRecord): AssignmentJob {
  const finished = job.status === "completed" || job.status === "failed";
  return {
    id: job.id,
    campaignId: job.campaignId,
    status: job.status,
    scope: job.scope,
    totalCount: job.totalCount,
    assignedCount: job.assignedCount,
    failedCount: job.failedCount,
    lastError: job.lastError,
    unassignableExternalIds: finished ? [...job.failedIds] : [],
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    completedAt: job.completedAt,
  };
}

export function jobInProgress(state: OrgState, campaignId: string): JobRecord | undefined {
  for (const j of campaignsArea(state).jobs.values())
    if (j.campaignId === campaignId && (j.status === "queued" || j.status === "running")) return j;
  return undefined;
}

/** A finished job keeps only its counts and failure list (smaller snapshots). */
function release(job: JobRecord): void {
  job.pending = [];
  job.unmatchedIds = [];
  job.cursor = 0;
}

/** Pace of job processing in real time (the sandbox clock only stamps the times). */
export const JOB_PACE = { tickMs: 100, chunk: 1000 };

/**
 * One processing step of a job. Returns true when the job needs another step.
 * queued → running (first step, nothing processed so a poller can see both states), then
 * JOB_PACE.chunk creators per step; completed (or failed) at the end.
 */
export function stepJob(sb: Sandbox, state: OrgState, job: JobRecord): boolean {
  const now = sb.clock.iso();
  if (job.status === "queued") {
    job.status = "running";
    job.startedAt = now;
    return true;
  }
  if (job.status !== "running") return false;
  const rec = findCampaign(state, job.campaignId);
  if (job.cursor === 0 && job.unmatchedIds.length > 0 && job.failedIds.length === 0) {
    job.failedIds.push(...job.unmatchedIds);
    job.failedCount += job.unmatchedIds.length;
  }
  const stop = (why: string) => {
    job.failedIds.push(...job.pending.slice(job.cursor));
    job.failedCount = job.totalCount - job.assignedCount;
    job.cursor = job.pending.length;
    job.status = "failed";
    release(job);
    job.lastError = why;
    job.completedAt = now;
    return false;
  };
  if (!rec) return stop("The campaign no longer exists.");
  if (rec.status === "ended") return stop("The campaign ended while the job was running.");
  if (isViewOnly(state, rec))
    return stop("The organization lost access to the campaign's brand while the job was running.");

  let budget = JOB_PACE.chunk;
  if (job.failPlanned) budget = Math.min(budget, Math.floor(job.pending.length / 2));
  const links = linksOf(state, job.campaignId);
  while (budget > 0 && job.cursor < job.pending.length) {
    const id = job.pending[job.cursor++]!;
    budget--;
    const creator = state.creators.get(id);
    if (links.has(id)) {
      // Linked meanwhile (single create): the creator has its link; skipped, not reactivated.
      job.assignedCount++;
    } else if (!creator?.active) {
      job.failedIds.push(id);
      job.failedCount++;
    } else {
      createLink(sb, state, job.campaignId, id);
      job.assignedCount++;
    }
  }
  if (job.failPlanned)
    return stop("Simulated failure (POST /_sandbox/campaigns/{id}/fail-next-job): the job stopped part-way.");
  if (job.cursor < job.pending.length) return true;
  job.status = "completed";
  release(job);
  job.completedAt = now;
  if (job.failedCount > 0)
    job.lastError = `${job.failedCount} creator${job.failedCount === 1 ? "" : "s"} could not be assigned; see unassignableExternalIds.`;
  sb.emit(state, "assignment.completed", {
    jobId: job.id,
    campaign: campaignReference(rec),
    assigned: job.assignedCount,
    failed: job.failedCount,
  });
  return false;
}

/** Runs jobs over real time, one timer chain per job; resumes unfinished jobs found in the store. */
export class JobRunner {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;
  constructor(private readonly sb: Sandbox) {}

  schedule(orgId: string, jobId: string, delayMs = JOB_PACE.tickMs): void {
    if (this.stopped || this.timers.has(jobId)) return;
    const t = setTimeout(() => {
      this.timers.delete(jobId);
      this.tick(orgId, jobId);
    }, delayMs);
    t.unref();
    this.timers.set(jobId, t);
  }

  private tick(orgId: string, jobId: string): void {
    if (this.stopped) return;
    const state = this.sb.store.orgs.get(orgId);
    const job = state ? campaignsArea(state).jobs.get(jobId) : undefined;
    if (!state || !job) return; // reset meanwhile
    const more = stepJob(this.sb, state, job);
    this.sb.markDirty();
    if (more) this.schedule(orgId, jobId);
  }

  /** Schedules every queued or running job in the store (after a restart). */
  resumeAll(): void {
    for (const state of this.sb.store.orgs.values()) {
      const a = state.areas.campaigns as CampaignsArea | undefined;
      if (!a) continue;
      for (const j of a.jobs.values())
        if (j.status === "queued" || j.status === "running") this.schedule(state.org.id, j.id);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}

const runners = new WeakMap<Sandbox, JobRunner>();

/** The job runner of a sandbox; created (and unfinished jobs resumed) on first use. */
export function jobRunner(sb: Sandbox): JobRunner {
  let r = runners.get(sb);
  if (!r) {
    r = new JobRunner(sb);
    runners.set(sb, r);
    r.resumeAll();
  }
  return r;
}

/**
 * Start-up hook (registered in server.ts defaultPlugins): resumes queued and running jobs found in a
 * loaded snapshot, and stops the job timers when the sandbox closes.
 */
export function assignmentJobsPlugin(running: { sandbox: Sandbox }): () => void {
  const r = jobRunner(running.sandbox);
  return () => r.stop();
}
