// Offers: list with brandId/state filters, get by baseGs1.
import { notFound } from "../errors.js";
import { ok, type Route } from "../http.js";
import { pageParams, paginate } from "../paging.js";

export const offerRoutes: Route[] = [
  {
    method: "GET",
    path: "/offers",
    handler: ({ state, query }) => {
      const brandId = query.get("brandId") || undefined;
      const offerState = query.get("state") || undefined;
      const all = [...state.offers.values()]
        .filter((o) => !brandId || o.brand.id === brandId)
        .filter((o) => !offerState || o.state === offerState)
        .sort((a, b) => (a.baseGs1 < b.baseGs1 ? -1 : 1));
      return ok(paginate(all, pageParams(query)));
    },
  },
  {
    method: "GET",
    path: "/offers/:baseGs1",
    handler: ({ state, params }) => {
      const offer = state.offers.get(params.baseGs1!);
      if (!offer) throw notFound("Offer");
      return ok(offer);
    },
  },
];
