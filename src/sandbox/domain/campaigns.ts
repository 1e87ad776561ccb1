// Campaigns of an organization (the campaigns area of store.ts): lookups by id and by
// externalReference, the API view, and the code counters the traffic area moves.
//
// How the traffic area updates codes (CampaignRecord.codes holds plain mutable counters; remaining is
// derived as limit - issued - testCodes, so limit = issued + testCodes + remaining always holds):
//   - a shopper receives a new code through a link:   recordCodesIssued(state, campaignId, 1)
//   - staff prepare test codes:                        recordTestCodes(state, campaignId, n)
//   - a verified redemption is counted / excluded:     recordRedeemed(state, campaignId, +1 / -1)
//   Each of the first two also sets canChangeRetailer = false ("false once the first code is
//   prepared"). None of them touches updatedAt (counters are not edits); each writes the record.
//   Do not hand out codes when codesRemaining(rec) <= 0 (supply.ts says how many may be handed out).
import { randomUUID } from "node:crypto";
import {
  type Campaign,
  type CampaignReference,
  type CampaignStatus,
  estimatedPerRedemption,
  NEXT_STATUSES,
} from "../../spec/campaigns.js";
import type { Table } from "../db.js";
import { type CampaignRecord, campaignsArea, type OrgState } from "../store.js";

export function campaignsOf(state: OrgState): Table<CampaignRecord> {
  return campaignsArea(state).campaigns;
}

export function findCampaign(state: OrgState, id: string): CampaignRecord | undefined {
  return campaignsArea(state).campaigns.get(id);
}

/** The campaign of an externalReference (an indexed column of the campaigns table). */
export function findCampaignByReference(state: OrgState, ref: string): CampaignRecord | undefined {
  return campaignsArea(state).campaigns.where("external_reference", ref)[0];
}

/** Writes a campaign record (a changed copy of one read). */
export function putCampaign(state: OrgState, rec: CampaignRecord): CampaignRecord {
  return campaignsArea(state).campaigns.put(rec.id, rec);
}

/** Finds a campaign by id or externalReference. */
export function findCampaignByIdOrReference(state: OrgState, v: string): CampaignRecord | undefined {
  return findCampaign(state, v) ?? findCampaignByReference(state, v);
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

/** Changes a copy of the campaign and writes it; returns the record written. */
function change(state: OrgState, campaignId: string, fn: (rec: CampaignRecord) => void): CampaignRecord {
  const rec = campaignsArea(state).campaigns.edit(campaignId, fn);
  if (!rec) throw new Error(`no campaign ${campaignId}`);
  return rec;
}

export function recordCodesIssued(state: OrgState, campaignId: string, count = 1): CampaignRecord {
  return change(state, campaignId, (rec) => {
    rec.codes.issued += count;
    rec.canChangeRetailer = false;
  });
}

export function recordTestCodes(state: OrgState, campaignId: string, count = 1): CampaignRecord {
  return change(state, campaignId, (rec) => {
    rec.codes.testCodes += count;
    rec.canChangeRetailer = false;
  });
}

export function recordRedeemed(state: OrgState, campaignId: string, delta = 1): CampaignRecord {
  return change(state, campaignId, (rec) => {
    rec.codes.redeemed = Math.max(0, rec.codes.redeemed + delta);
  });
}

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
    seq: a.nextSeq(),
    status: "draft",
    codes: { limit: codeLimit, issued: 0, redeemed: 0, testCodes: 0 },
    canChangeRetailer: true,
    updatedAt: init.createdAt,
  };
  return a.campaigns.put(rec.id, rec);
}
