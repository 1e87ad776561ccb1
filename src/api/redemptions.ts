import {
  looseRedemptions,
  type Redemption,
  type RedemptionFeedPage,
  type RedemptionRangePage,
} from "../spec/redemptions.js";
import type { ApiClient } from "./client.js";
import { seg } from "./client.js";

// ---- the feed page check ----
// A feed page holds up to 1,000 redemptions, read a million at a time by exports, and zod's loose
// parse of each one (a copy of every object, with its bookkeeping) cost about 7% of an export's
// time. This check accepts a page only when every object has exactly the fields of the schema, with
// their types (the common case), and returns what zod's loose parse would (the same fields in the
// schema's order, so NDJSON lines keep their bytes); anything else (an unknown field, a missing or
// mistyped one) goes to zod itself, which accepts unknown fields and enum values as the spec asks,
// or says what does not match. test/export/feed-page-check.test.ts compares both on random pages.

/** kit.ts's Timestamp. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);
const str = (x: unknown): x is string => typeof x === "string";
const strOrNull = (x: unknown): x is string | null => x === null || typeof x === "string";
const stamp = (x: unknown): x is string => typeof x === "string" && TIMESTAMP.test(x);

/** Counts enumerable keys, stopping past `max`. */
function keyCount(o: Obj, max: number): number {
  let n = 0;
  for (const _ in o) if (++n > max) break;
  return n;
}

/** The redemption in the schema's field order, or undefined when zod has to look at it. */
function fastRedemption(x: unknown): Redemption | undefined {
  if (!isObj(x) || keyCount(x, 11) !== 11) return undefined;
  const { campaign: c, offer: o, brand: b, creator: cr, retailer: rt, exclusion: ex } = x;
  if (
    !str(x.id) ||
    !str(x.serializedGs1) ||
    !stamp(x.redeemedAt) ||
    !stamp(x.recordedAt) ||
    !str(x.countingState) ||
    !isObj(c) ||
    keyCount(c, 3) !== 3 ||
    !str(c.id) ||
    !strOrNull(c.externalReference) ||
    !str(c.name) ||
    !isObj(o) ||
    keyCount(o, 2) !== 2 ||
    !str(o.baseGs1) ||
    !strOrNull(o.title) ||
    !isObj(b) ||
    keyCount(b, 2) !== 2 ||
    !str(b.id) ||
    !str(b.name) ||
    !(cr === null || (isObj(cr) && keyCount(cr, 2) === 2 && str(cr.externalId) && str(cr.name))) ||
    !(rt === null || (isObj(rt) && keyCount(rt, 2) === 2 && str(rt.emailDomain) && strOrNull(rt.name))) ||
    !(ex === null || (isObj(ex) && keyCount(ex, 2) === 2 && stamp(ex.excludedAt) && strOrNull(ex.reason)))
  )
    return undefined;
  return {
    id: x.id,
    serializedGs1: x.serializedGs1,
    redeemedAt: x.redeemedAt,
    recordedAt: x.recordedAt,
    campaign: { id: c.id, externalReference: c.externalReference, name: c.name },
    offer: { baseGs1: o.baseGs1, title: o.title },
    brand: { id: b.id, name: b.name },
    creator: cr === null ? null : { externalId: cr.externalId as string, name: cr.name as string },
    retailer: rt === null ? null : { emailDomain: rt.emailDomain as string, name: rt.name as string | null },
    countingState: x.countingState as Redemption["countingState"],
    exclusion:
      ex === null ? null : { excludedAt: ex.excludedAt as string, reason: ex.reason as string | null },
  };
}

/** The feed page check: the fast path above, else zod's loose schema (same result, same errors). */
export const feedPageSchema = {
  safeParse(body: unknown): ReturnType<typeof looseRedemptions.RedemptionFeedPage.safeParse> {
    if (isObj(body) && Array.isArray(body.items) && strOrNull(body.nextCursor) && keyCount(body, 2) === 2) {
      const items: Redemption[] = new Array(body.items.length);
      let i = 0;
      for (; i < items.length; i++) {
        const r = fastRedemption(body.items[i]);
        if (!r) break;
        items[i] = r;
      }
      if (i === items.length) return { success: true, data: { items, nextCursor: body.nextCursor } } as never;
    }
    return looseRedemptions.RedemptionFeedPage.safeParse(body);
  },
};

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
    schema: feedPageSchema as never,
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
