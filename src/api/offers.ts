import { looseOffers, type Offer } from "../spec/offers.js";
import type { ApiClient } from "./client.js";
import { seg } from "./client.js";
import type { Page } from "./paging.js";

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
    query: { ...q },
    retry: "read",
    schema: looseOffers.OfferPage as never,
  });
}

export function getOffer(c: ApiClient, baseGs1: string): Promise<Offer> {
  return c.call({
    method: "GET",
    path: `/offers/${seg(baseGs1)}`,
    retry: "read",
    schema: looseOffers.Offer as never,
  });
}
