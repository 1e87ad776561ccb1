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
} from "../domain/campaigns.js";
import { conflict, invalid, notFound } from "../errors.js";
import { ok, type Handlers, type SandboxRequest } from "../http.js";
import { pageParams, paginate } from "../paging.js";
import type { OrgState, CampaignRecord } from "../store.js";

type Details = Record<string, string[]>;
const add = (d: Details, field: string, msg: string) => {
  const list = d[field] ?? [];
  list.push(msg);
  d[field] = list;
};

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

function checkRetailer(offer: Offer, retailer: { emailDomain: string }, d: Details): string | undefined {
  if (offer.allowedRetailers.length === 0) {
    add(d, "retailer.emailDomain", "this offer allows no retailer restriction");
    return undefined;
  }
  const match = offer.allowedRetailers.find((r) => r.toLowerCase() === retailer.emailDomain);
  if (!match) add(d, "retailer.emailDomain", `must be one of ${offer.allowedRetailers.join(", ")}`);
  return match;
}

function checkDay(offer: Offer, field: "from" | "through", day: string, d: Details): void {
  const span = offer.redemptionDates;
  if (!span) return;
  if (day < span.from || day > span.through)
    add(d, `dates.${field}`, `must be within the offer's redemption dates ${span.from} to ${span.through}`);
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
  if (!offer.canDistribute)
    throw invalid(`The offer cannot be distributed (state ${offer.state}).`, {
      baseGs1: [`offer cannot be distributed (state ${offer.state})`],
    });
  const d: Details = {};
  checkDay(offer, "from", b.dates.from, d);
  checkDay(offer, "through", b.dates.through, d);
  if (offer.codesAvailable !== null && b.codeLimit > offer.codesAvailable)
    add(d, "codeLimit", `must be at most ${offer.codesAvailable}, the offer's available codes`);
  let retailer: CampaignRecord["retailer"] = null;
  if (b.retailer) {
    const domain = checkRetailer(offer, b.retailer, d);
    if (domain) retailer = { emailDomain: domain, name: b.retailer.name };
  } else if (offer.retailerChoiceRequired) add(d, "retailer", "is required for this offer");
  if (Object.keys(d).length) throw invalid("The campaign is not valid.", d);

  const brand = state.brands.get(offer.brand.id);
  if (brand?.access !== true) throw conflict("The organization no longer has access to this offer's brand.");
  const externalReference = b.externalReference ?? null;
  if (externalReference !== null) {
    const existing = [...campaignsOf(state).values()].find((c) => c.externalReference === externalReference);
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
  const offer = state.offers.get(rec.offer.baseGs1);
  const d: Details = {};
  const next = {
    name: b.name ?? rec.name,
    dates: { from: b.dates?.from ?? rec.dates.from, through: b.dates?.through ?? rec.dates.through },
    commission: {
      rate: b.commission?.rate ?? rec.commission.rate,
      estimatedUnitSalePrice: b.commission?.estimatedUnitSalePrice ?? rec.commission.estimatedUnitSalePrice,
    },
    retailer: rec.retailer,
    limit: b.codeLimit ?? rec.codes.limit,
  };

  // Dates (rule 4): merged, through on or after from; a sent day must fit the offer's redemption dates.
  if (next.dates.through < next.dates.from)
    add(
      d,
      b.dates?.through !== undefined ? "dates.through" : "dates.from",
      b.dates?.through !== undefined
        ? "must be on or after dates.from"
        : "must be on or before dates.through",
    );
  if (offer) {
    if (b.dates?.from !== undefined && b.dates.from !== rec.dates.from)
      checkDay(offer, "from", b.dates.from, d);
    if (b.dates?.through !== undefined && b.dates.through !== rec.dates.through)
      checkDay(offer, "through", b.dates.through, d);
  }

  // Retailer (rule 3).
  let retailerConflict: string | undefined;
  if (b.retailer === null) {
    if (rec.retailer !== null) {
      if (!rec.canChangeRetailer)
        retailerConflict = "The retailer restriction is fixed once the first code is prepared.";
      else if (offer?.retailerChoiceRequired) add(d, "retailer", "is required for this offer");
      else next.retailer = null;
    }
  } else if (b.retailer !== undefined) {
    if (rec.retailer && b.retailer.emailDomain === rec.retailer.emailDomain.toLowerCase()) {
      next.retailer = { emailDomain: rec.retailer.emailDomain, name: b.retailer.name };
    } else if (!rec.canChangeRetailer) {
      retailerConflict =
        "The retailer's emailDomain is fixed once the first code is prepared; only its name may change (send the same emailDomain).";
    } else if (offer) {
      const domain = checkRetailer(offer, b.retailer, d);
      if (domain) next.retailer = { emailDomain: domain, name: b.retailer.name };
    } else add(d, "retailer.emailDomain", "the campaign's offer no longer exists");
  }

  // codeLimit (rule 2): absolute; raise before the end while the offer is available with codes left.
  let limitConflict: string | undefined;
  const handedOut = rec.codes.issued + rec.codes.testCodes;
  if (next.limit < rec.codes.limit) {
    if (next.limit < handedOut)
      add(d, "codeLimit", `must be at least ${handedOut}, the codes already handed out including test codes`);
  } else if (next.limit > rec.codes.limit) {
    if (rec.status === "ended") limitConflict = "The campaign has ended; its code limit cannot be raised.";
    else if (offer?.state !== "available")
      limitConflict = `The offer is not available (state ${offer?.state ?? "gone"}); the code limit cannot be raised.`;
    else if (offer.codesAvailable === 0)
      limitConflict = "The offer has no codes left; the code limit cannot be raised.";
    else if (offer.codesAvailable !== null && next.limit - handedOut > offer.codesAvailable)
      add(
        d,
        "codeLimit",
        `must be at most ${handedOut + offer.codesAvailable}: the offer has ${offer.codesAvailable} codes available`,
      );
  }
  if (Object.keys(d).length) throw invalid("The change is not valid.", d);
  if (retailerConflict) throw conflict(retailerConflict);
  if (limitConflict) throw conflict(limitConflict);

  const changed =
    next.name !== rec.name ||
    next.dates.from !== rec.dates.from ||
    next.dates.through !== rec.dates.through ||
    next.commission.rate !== rec.commission.rate ||
    next.commission.estimatedUnitSalePrice !== rec.commission.estimatedUnitSalePrice ||
    JSON.stringify(next.retailer) !== JSON.stringify(rec.retailer) ||
    next.limit !== rec.codes.limit;
  if (changed) {
    rec.name = next.name;
    rec.dates = next.dates;
    rec.commission = next.commission;
    rec.retailer = next.retailer;
    rec.codes.limit = next.limit;
    rec.updatedAt = sb.clock.iso();
  }
  return ok(campaignView(state, rec));
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
  rec.status = to;
  rec.updatedAt = sb.clock.iso();
  sb.emit(state, "campaign.status_changed", { campaign: campaignReference(rec), from, to });
  return ok(campaignView(state, rec));
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
