// Offers: GET /offers (paged, brandId and state filters) and GET /offers/{baseGs1}.
import { looseOffers, type Offer } from "../spec/offers.js";
import type { ApiClient } from "./client.js";
import { seg } from "./client.js";
import { allItems, type Page } from "./paging.js";

export interface OfferListQuery {
  brandId?: string | undefined;
  state?: string | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

export function listOffers(c: ApiClient, q: OfferListQuery): Promise<Page<Offer>> {
  return c.call({
    method: "GET",
    path: "/offers",
    query: { brandId: q.brandId, state: q.state, page: q.page, pageSize: q.pageSize },
    retry: "read",
    schema: looseOffers.OfferPage as never,
  });
}

/** Every offer matching the filters, walking all pages. */
export function allOffers(c: ApiClient, q: Omit<OfferListQuery, "page">): AsyncGenerator<Offer> {
  return allItems((page) => listOffers(c, { ...q, page }));
}

export function getOffer(c: ApiClient, baseGs1: string): Promise<Offer> {
  return c.call({
    method: "GET",
    path: `/offers/${seg(baseGs1)}`,
    retry: "read",
    schema: looseOffers.Offer as never,
  });
}
