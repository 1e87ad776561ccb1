// The supply rules of a campaign (spec: Supply rules, Campaign rules): how many codes may still be
// handed out (the campaign's code limit and the offer's available codes), why none may be, handing
// codes out, and the supply alerts.
import type { Sandbox } from "../sandbox.js";
import { type CampaignRecord, type OrgState, trafficOf } from "../store.js";
import {
  campaignReference,
  codesRemaining,
  findCampaign,
  isViewOnly,
  recordCodesIssued,
  recordTestCodes,
} from "./campaigns.js";

/** Codes the campaign's offer still has (Infinity: the offer sets no supply, or is gone). */
function offerSupply(state: OrgState, rec: CampaignRecord): number {
  const offer = state.offers.get(rec.offer.baseGs1);
  return offer?.codesAvailable === null || !offer ? Number.POSITIVE_INFINITY : offer.codesAvailable;
}

/** Codes that may still be handed out: within the campaign's limit and the offer's supply. */
export function codesAvailable(state: OrgState, rec: CampaignRecord): number {
  return Math.min(codesRemaining(rec), offerSupply(state, rec));
}

/**
 * Why a shopper cannot claim a code of the campaign now (undefined: one can). `inDates`: the claim's
 * time is within the campaign's dates; `hasLinks`: the campaign has an active share link.
 */
export function whyNoClaims(
  state: OrgState,
  rec: CampaignRecord,
  at: { inDates: boolean; hasLinks: boolean },
): string | undefined {
  if (rec.status !== "active") return `the campaign is ${rec.status}`;
  if (isViewOnly(state, rec)) return "the organization lost access to its brand";
  if (state.offers.get(rec.offer.baseGs1)?.state !== "available") return "its offer is not available";
  if (!at.inDates) return "the time is outside the campaign dates";
  if (!at.hasLinks) return "it has no active links";
  if (codesRemaining(rec) <= 0) return "no codes remain under its limit";
  if (offerSupply(state, rec) <= 0) return "its offer has no codes left";
  return undefined;
}

/** Why staff cannot prepare test codes on the campaign (undefined: they can, while codes remain). */
export function whyNoTestCodes(state: OrgState, rec: CampaignRecord): string | undefined {
  if (rec.status === "ended") return "the campaign has ended";
  if (isViewOnly(state, rec)) return "the organization lost access to its brand";
  return undefined;
}

/** Counts n codes handed out (shopper claims or staff test codes) against the limit and the offer. */
export function handOutCodes(state: OrgState, rec: CampaignRecord, n: number, kind: "claims" | "test"): void {
  if (kind === "claims") recordCodesIssued(state, rec.id, n);
  else recordTestCodes(state, rec.id, n);
  const offer = state.offers.get(rec.offer.baseGs1);
  if (offer && offer.codesAvailable !== null)
    state.offers.put(offer.baseGs1, { ...offer, codesAvailable: offer.codesAvailable - n });
}

/** The supply codes of a campaign (issued includes staff test codes). */
function supplyCodes(rec: CampaignRecord) {
  return {
    limit: rec.codes.limit,
    issued: rec.codes.issued + rec.codes.testCodes,
    remaining: codesRemaining(rec),
  };
}

/**
 * Supply alerts: with alert recipients configured, an active campaign whose remaining drops to a
 * positive value at or below ceil(10% of the limit) gets one campaign.supply_low per incident; none
 * left gets one campaign.supply_exhausted. The incident ends when remaining rises above the threshold
 * again (a raised limit). Returns the events emitted. The sandbox checks right after codes are handed
 * out instead of every five minutes.
 */
export function checkSupply(sb: Sandbox, state: OrgState, asRead: CampaignRecord): number {
  const rec = findCampaign(state, asRead.id) ?? asRead;
  const t = trafficOf(state);
  const remaining = codesRemaining(rec);
  const threshold = Math.ceil(rec.codes.limit * 0.1);
  let alerts = t.supplyAlerts.get(rec.id);
  if (remaining > threshold) {
    if (alerts) t.supplyAlerts.delete(rec.id);
    return 0;
  }
  if (!alerts) {
    alerts = { low: false, exhausted: false };
    t.supplyAlerts.set(rec.id, alerts);
  }
  if (remaining > 0) alerts.exhausted = false;
  if (rec.status !== "active" || state.org.alertRecipients.length === 0) return 0;
  const data = () => ({ campaign: campaignReference(rec), codes: supplyCodes(rec) });
  if (remaining <= 0 && !alerts.exhausted) {
    alerts.exhausted = true;
    alerts.low = true;
    sb.emit(state, "campaign.supply_exhausted", data());
    return 1;
  }
  if (remaining > 0 && !alerts.low) {
    alerts.low = true;
    sb.emit(state, "campaign.supply_low", data());
    return 1;
  }
  return 0;
}
