import {
  looseRedemptions,
  type Redemption,
  type RedemptionFeedPage,
  type RedemptionRangePage,
} from "../spec/redemptions.js";
import type { ApiClient } from "./client.js";
import { seg } from "./client.js";

/** Feed mode: `after` (opaque cursor) and `limit` (at most 1,000). */
export function redemptionFeed(
  c: ApiClient,
  q: { after?: string | undefined; limit?: number | undefined },
): Promise<RedemptionFeedPage> {
  return c.call({
    method: "GET",
    path: "/redemptions",
    query: q,
    retry: "read",
    schema: looseRedemptions.RedemptionFeedPage as never,
  });
}

export interface RedemptionRangeQuery {
  preset?: string | undefined;
  from?: string | undefined;
  through?: string | undefined;
  brandId?: string | undefined;
  campaignId?: string | undefined;
  countingState?: string | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
  asOf?: string | undefined;
}

/** Range mode: filtered by redeemedAt in the organization's time zone, newest first. */
export function redemptionRange(c: ApiClient, q: RedemptionRangeQuery): Promise<RedemptionRangePage> {
  return c.call({
    method: "GET",
    path: "/redemptions",
    query: { ...q },
    retry: "read",
    schema: looseRedemptions.RedemptionRangePage as never,
  });
}

export function getRedemption(c: ApiClient, id: string): Promise<Redemption> {
  return c.call({
    method: "GET",
    path: `/redemptions/${seg(id)}`,
    retry: "read",
    schema: looseRedemptions.Redemption as never,
  });
}
