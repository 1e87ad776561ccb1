// Campaigns: list, get, create, PATCH and status changes, with every rule of the Campaign table,
// the Campaign status table and the Campaigns endpoints (choices where the spec is silent are in
// docs/sandbox/campaigns.md).
import {
  CAMPAIGN_STATUSES,
  CampaignCreateBody,
  CampaignPatchBody,
  CampaignStatusBody,
  NEXT_STATUSES,
} from "../../spec/campaigns.js";
import {
  allowedRetailer,
  asDetails,
  type CampaignValues,
  createProblems,
  patchConflict,
  patchProblems,
} from "../../spec/campaign-rules.js";
import { issueDetails } from "../../spec/creators.js";
import type { Offer } from "../../spec/offers.js";
import {
  campaignReference,
  campaignsOf,
  campaignView,
  findCampaign,
  findCampaignByReference,
  isViewOnly,
  newCampaignRecord,
  putCampaign,
} from "../domain/campaigns.js";
import { conflict, invalid, notFound } from "../errors.js";
import { ok, type Handlers, type SandboxRequest } from "../http.js";
import { pageParams, paginate } from "../paging.js";
import type { OrgState, CampaignRecord } from "../store.js";

function requireObject(body: unknown): void {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw invalid("The body must be a JSON object.", { body: ["must be a JSON object"] });
}

/** The campaign of the path, or 404 (another organization's campaign is simply not in this state). */
export function campaignOr404(state: OrgState, id: string): CampaignRecord {
  const rec = findCampaign(state, id);
  if (!rec) throw notFound("Campaign");
  return rec;
}

/** 409 for any change to a view-only campaign. */
export function refuseViewOnly(state: OrgState, rec: CampaignRecord): void {
  if (isViewOnly(state, rec))
    throw conflict(
      "The organization no longer has access to this campaign's brand; the campaign is view-only.",
    );
}

function create(req: SandboxRequest) {
  const { state, sb } = req;
  requireObject(req.body);
  const r = CampaignCreateBody.safeParse(req.body);
  if (!r.success) throw invalid("The campaign is not valid.", issueDetails(r.error));
  const b = r.data;
  const offer = state.offers.get(b.baseGs1);
  if (!offer)
    throw invalid("The offer does not exist.", { baseGs1: ["no such offer for this organization"] });
  const problems = createProblems(
    { dates: b.dates, codeLimit: b.codeLimit, retailer: b.retailer ?? null },
    offer,
  );
  if (problems.length)
    throw invalid(
      offer.canDistribute
        ? "The campaign is not valid."
        : `The offer cannot be distributed (state ${offer.state}).`,
      asDetails(problems),
    );
  const retailer: CampaignRecord["retailer"] = b.retailer
    ? { emailDomain: allowedRetailer(offer, b.retailer.emailDomain)!, name: b.retailer.name }
    : null;

  const brand = state.brands.get(offer.brand.id);
  if (brand?.access !== true) throw conflict("The organization no longer has access to this offer's brand.");
  const externalReference = b.externalReference ?? null;
  if (externalReference !== null) {
    const existing = findCampaignByReference(state, externalReference);
    if (existing)
      throw conflict(
        `The externalReference "${externalReference}" is already used by campaign ${existing.id}.`,
        { externalReference: [`already used by campaign ${existing.id}`] },
      );
  }
  const now = sb.clock.iso();
  const rec = newCampaignRecord(state, {
    externalReference,
    name: b.name,
    offer: { baseGs1: offer.baseGs1, title: offer.title, brand: { ...offer.brand } },
    dates: { ...b.dates },
    retailer,
    commission: { rate: b.commission.rate, estimatedUnitSalePrice: b.commission.estimatedUnitSalePrice },
    codeLimit: b.codeLimit,
    createdAt: now,
  });
  return ok(campaignView(state, rec), 201);
}

function patch(req: SandboxRequest) {
  const { state, sb } = req;
  const rec = campaignOr404(state, req.params.id!);
  requireObject(req.body);
  const r = CampaignPatchBody.safeParse(req.body);
  if (!r.success) throw invalid("The change is not valid.", issueDetails(r.error));
  const b = r.data;
  refuseViewOnly(state, rec);
  const offer = state.offers.get(rec.offer.baseGs1) ?? null;
  const change: CampaignValues = { dates: b.dates, codeLimit: b.codeLimit, retailer: b.retailer };
  const problems = patchProblems(change, rec, offer);
  if (problems.length) throw invalid("The change is not valid.", asDetails(problems));
  const refused = patchConflict(change, rec, offer);
  if (refused) throw conflict(refused);
  const next = {
    name: b.name ?? rec.name,
    dates: { from: b.dates?.from ?? rec.dates.from, through: b.dates?.through ?? rec.dates.through },
    commission: {
      rate: b.commission?.rate ?? rec.commission.rate,
      estimatedUnitSalePrice: b.commission?.estimatedUnitSalePrice ?? rec.commission.estimatedUnitSalePrice,
    },
    retailer: nextRetailer(rec, b.retailer, offer),
    limit: b.codeLimit ?? rec.codes.limit,
  };

  const changed =
    next.name !== rec.name ||
    next.dates.from !== rec.dates.from ||
    next.dates.through !== rec.dates.through ||
    next.commission.rate !== rec.commission.rate ||
    next.commission.estimatedUnitSalePrice !== rec.commission.estimatedUnitSalePrice ||
    JSON.stringify(next.retailer) !== JSON.stringify(rec.retailer) ||
    next.limit !== rec.codes.limit;
  const saved = changed
    ? putCampaign(state, {
        ...rec,
        name: next.name,
        dates: next.dates,
        commission: next.commission,
        retailer: next.retailer,
        codes: { ...rec.codes, limit: next.limit },
        updatedAt: sb.clock.iso(),
      })
    : rec;
  return ok(campaignView(state, saved));
}

/** The retailer after a checked change: kept, cleared, renamed, or the offer's spelling of a new domain. */
function nextRetailer(
  rec: CampaignRecord,
  sent: { emailDomain: string; name: string } | null | undefined,
  offer: Offer | null,
): CampaignRecord["retailer"] {
  if (sent === undefined) return rec.retailer;
  if (sent === null) return null;
  if (rec.retailer && sent.emailDomain === rec.retailer.emailDomain.toLowerCase())
    return { emailDomain: rec.retailer.emailDomain, name: sent.name };
  return {
    emailDomain: (offer && allowedRetailer(offer, sent.emailDomain)) ?? sent.emailDomain,
    name: sent.name,
  };
}

function setStatus(req: SandboxRequest) {
  const { state, sb } = req;
  const rec = campaignOr404(state, req.params.id!);
  requireObject(req.body);
  const r = CampaignStatusBody.safeParse(req.body);
  if (!r.success) throw invalid("The status is not valid.", issueDetails(r.error));
  const to = r.data.status;
  const from = rec.status;
  if (to === from) return ok(campaignView(state, rec)); // unchanged, no event
  refuseViewOnly(state, rec);
  if (from === "ended") throw conflict("The campaign has ended; ended is final.");
  if (!NEXT_STATUSES[from].includes(to))
    throw conflict(`A ${from} campaign cannot become ${to}; allowed: ${NEXT_STATUSES[from].join(", ")}.`);
  const saved = putCampaign(state, { ...rec, status: to, updatedAt: sb.clock.iso() });
  sb.emit(state, "campaign.status_changed", { campaign: campaignReference(saved), from, to });
  return ok(campaignView(state, saved));
}

export const campaignHandlers = {
  list: ({ state, query }) => {
    const status = query.get("status") || undefined;
    if (status !== undefined && !(CAMPAIGN_STATUSES as readonly string[]).includes(status))
      throw invalid("status must be draft, active, paused or ended.", {
        status: ["must be one of draft, active, paused, ended"],
      });
    const brandId = query.get("brandId") || undefined;
    const ref = query.get("externalReference");
    const p = pageParams(query);
    const byRef = ref ? findCampaignByReference(state, ref.trim()) : undefined;
    const all = (ref ? (byRef ? [byRef] : []) : [...campaignsOf(state).values()])
      .filter((c) => !status || c.status === status)
      .filter((c) => !brandId || c.offer.brand.id === brandId)
      .sort((a, b) => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : b.seq - a.seq));
    const page = paginate(all, p);
    return ok({ ...page, items: page.items.map((c) => campaignView(state, c)) });
  },
  get: ({ state, params }) => {
    return ok(campaignView(state, campaignOr404(state, params.id!)));
  },
  create,
  patch,
  setStatus,
} satisfies Handlers;
