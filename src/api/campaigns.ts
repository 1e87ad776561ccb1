// Campaigns endpoints: one function per endpoint, each with its retry class and, for writes, the
// read-back that settles an uncertain outcome (spec: Errors, case-specific rules 2 and 5).
import { ApiError } from "../errors.js";
import { type Campaign, looseCampaigns, type StatusTarget } from "../spec/campaigns.js";
import type { ApiClient } from "./client.js";
import { seg } from "./client.js";
import type { Page } from "./paging.js";

export interface CampaignListQuery {
  status?: string | undefined;
  brandId?: string | undefined;
  externalReference?: string | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

export function listCampaigns(c: ApiClient, q: CampaignListQuery): Promise<Page<Campaign>> {
  return c.call({
    method: "GET",
    path: "/campaigns",
    query: { ...q },
    retry: "read",
    schema: looseCampaigns.CampaignPage as never,
  });
}

export function getCampaign(c: ApiClient, id: string): Promise<Campaign> {
  return c.call({
    method: "GET",
    path: `/campaigns/${seg(id)}`,
    retry: "read",
    schema: looseCampaigns.Campaign as never,
  });
}

/** GET /campaigns?externalReference=REF: the campaign with that reference, or null. */
export async function findCampaignByReference(
  c: ApiClient,
  externalReference: string,
): Promise<Campaign | null> {
  const page = await listCampaigns(c, { externalReference, pageSize: 10 });
  // The filter is exact; the comparison guards against a service that filters loosely.
  return page.items.find((x) => x.externalReference === externalReference) ?? null;
}

/** What the CLI sends to POST /campaigns (decimals as JSON numbers). */
export interface CampaignCreate {
  name: string;
  baseGs1: string;
  dates: { from: string; through: string };
  codeLimit: number;
  retailer?: { emailDomain: string; name: string } | null | undefined;
  commission: { rate: number; estimatedUnitSalePrice: number };
  /** Always sent by the CLI: it is what makes a retry safe. */
  externalReference: string;
}

export interface CreateResult {
  campaign: Campaign;
  /** True when the campaign was found by its reference after an uncertain outcome (500, lost answer). */
  recovered: boolean;
}

/**
 * POST /campaigns, retry class "create". A 429/502/503 (nothing applied) is repeated. After a 500,
 * a timeout or a lost connection the outcome is uncertain: the campaign is looked up by its
 * externalReference first; found → that is our campaign (no second create), not found → the
 * create is repeated. A 409 (reference already in use before we started) is passed on.
 */
export async function createCampaign(c: ApiClient, body: CampaignCreate): Promise<CreateResult> {
  let recovered = false;
  const res = await c.send<Campaign>({
    method: "POST",
    path: "/campaigns",
    body,
    retry: "create",
    schema: looseCampaigns.Campaign as never,
    recover: async () => {
      const found = await findCampaignByReference(c, body.externalReference);
      if (!found) return "retry";
      recovered = true;
      return { value: found };
    },
  });
  return { campaign: res.body, recovered };
}

/** What the CLI sends to PATCH /campaigns/{id}: only the fields that change (merge semantics). */
export interface CampaignPatch {
  name?: string | undefined;
  dates?: { from?: string | undefined; through?: string | undefined } | undefined;
  codeLimit?: number | undefined;
  retailer?: { emailDomain: string; name: string } | null | undefined;
  commission?: { rate?: number | undefined; estimatedUnitSalePrice?: number | undefined } | undefined;
}

/**
 * PATCH /campaigns/{id}, retry class "idempotent": every field carries an absolute value, so a
 * repeat lands on the same state. After a 500 the campaign is read back (it must still exist)
 * before the PATCH is repeated.
 */
export function patchCampaign(c: ApiClient, id: string, body: CampaignPatch): Promise<Campaign> {
  return c.call({
    method: "PATCH",
    path: `/campaigns/${seg(id)}`,
    body,
    retry: "idempotent",
    schema: looseCampaigns.Campaign as never,
    recover: async () => {
      await getCampaign(c, id);
      return "retry";
    },
  });
}

/**
 * POST /campaigns/{id}/status, retry class "idempotent" (the desired absolute status; a
 * same-status request is a 200 no-op). After a 500 the campaign is read back: already in the
 * target status → done, else the request is repeated.
 */
export function setCampaignStatus(c: ApiClient, id: string, status: StatusTarget): Promise<Campaign> {
  return c.call({
    method: "POST",
    path: `/campaigns/${seg(id)}/status`,
    body: { status },
    retry: "idempotent",
    schema: looseCampaigns.Campaign as never,
    recover: async () => {
      const now = await getCampaign(c, id);
      return now.status === status ? { value: now } : "retry";
    },
  });
}

/** True for a 404 answer. */
export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.status === 404;
}
