// Offers: list with brandId/state filters, get by baseGs1.
import { OFFER_STATES, type OfferState } from "../../spec/offers.js";
import { invalid, notFound } from "../errors.js";
import { ok, type Handlers } from "../http.js";
import { pageParams, paginate } from "../paging.js";

export const offerHandlers = {
  list: ({ state, query }) => {
    const brandId = query.get("brandId") || undefined;
    const offerState = query.get("state") || undefined;
    if (offerState !== undefined && !OFFER_STATES.includes(offerState as OfferState)) {
      throw invalid(`state must be one of ${OFFER_STATES.join(", ")}.`, {
        state: [`must be one of ${OFFER_STATES.join(", ")}`],
      });
    }
    const all = [...state.offers.values()]
      .filter((o) => !brandId || o.brand.id === brandId)
      .filter((o) => !offerState || o.state === offerState)
      .sort((a, b) => (a.baseGs1 < b.baseGs1 ? -1 : a.baseGs1 > b.baseGs1 ? 1 : 0));
    return ok(paginate(all, pageParams(query)));
  },
  get: ({ state, params }) => {
    const offer = state.offers.get(params.baseGs1!);
    if (!offer) throw notFound("Offer");
    return ok(offer);
  },
} satisfies Handlers;
