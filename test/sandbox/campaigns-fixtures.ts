// Shared arrangements of the campaign and share-link conformance tests.
import { expect } from "vitest";
import { seg } from "../../src/api/client.js";
import type { OrgState } from "../../src/sandbox/store.js";
import { type Campaign, strictCampaigns } from "../../src/spec/campaigns.js";
import { strictLinks } from "../../src/spec/links.js";
import { strictOffers } from "../../src/spec/offers.js";
import { http, type RunningSandbox } from "../helpers/sandbox.js";
import { strict } from "./core-util.js";
import { SEED } from "../../src/sandbox/seed.js";

export function main(sb: RunningSandbox): OrgState {
  const key = sb.sandbox.store.keys.get(sb.writeKey)!;
  return sb.sandbox.store.orgs.get(key.orgId)!;
}

export async function offer(sb: RunningSandbox, baseGs1: string) {
  return strict(strictOffers.Offer, await http(sb, "GET", `/offers/${baseGs1}`));
}

/** A day `n` days after `day`. */
export function shift(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

let refSeq = 0;
/** A valid create body for the offer (dates inside its redemption window), with overrides. */
export async function body(sb: RunningSandbox, over: Record<string, unknown> = {}, key = sb.writeKey) {
  const baseGs1 = (over.baseGs1 as string | undefined) ?? SEED.offers.oats;
  let res = await http(sb, "GET", `/offers/${baseGs1}`, { key });
  if (res.status !== 200 || !res.body.redemptionDates)
    res = await http(sb, "GET", `/offers/${SEED.offers.oats}`);
  const from = strictOffers.Offer.parse(res.body).redemptionDates!.from;
  return {
    name: `Campaign ${++refSeq}`,
    baseGs1,
    dates: { from: shift(from, 1), through: shift(from, 20) },
    codeLimit: 100,
    commission: { rate: 0.1, estimatedUnitSalePrice: 4.99 },
    ...over,
  };
}

export async function setStatus(sb: RunningSandbox, id: string, status: string): Promise<Campaign> {
  return strict(
    strictCampaigns.Campaign,
    await http(sb, "POST", `/campaigns/${id}/status`, { body: { status } }),
  );
}

export async function brandAccess(sb: RunningSandbox, brandId: string, access: boolean) {
  const res = await http(sb, "POST", `/brands/${brandId}/access`, { control: true, body: { access } });
  expect(res.status).toBe(200);
}

/** Puts creators on the roster through PUT /creators/{externalId}. */
export async function putCreator(sb: RunningSandbox, externalId: string, over: Record<string, unknown> = {}) {
  const res = await http(sb, "PUT", `/creators/${seg(externalId)}`, {
    body: { name: `Creator ${externalId}`, ...over },
  });
  expect([200, 201]).toContain(res.status);
}

export const path = (campaignId: string, externalId?: string) =>
  `/campaigns/${campaignId}/creators${externalId === undefined ? "" : `/${seg(externalId)}`}`;

export async function link(sb: RunningSandbox, campaignId: string, externalId: string, status = 201) {
  return strict(strictLinks.ShareLink, await http(sb, "POST", path(campaignId, externalId)), status);
}

/** Simulates codes handed out (the traffic area's job) directly in the store. */
export function handOut(sb: RunningSandbox, campaignId: string, issued: number, testCodes = 0) {
  const state = main(sb);
  sb.sandbox.store.write(() =>
    state.campaigns.campaigns.edit(campaignId, (rec) => {
      rec.codes.issued += issued;
      rec.codes.testCodes += testCodes;
      if (issued + testCodes > 0) rec.canChangeRetailer = false;
    }),
  );
}

export function eventsOf(sb: RunningSandbox, type: string) {
  return main(sb)
    .events.list()
    .filter((e) => e.type === type);
}
