import {
  looseRedemptions,
  type Redemption,
  type RedemptionFeedPage,
  type RedemptionRangePage,
} from "../spec/redemptions.js";
import type { ApiClient } from "./client.js";
import { seg } from "./client.js";
import { isRecord, keyCount } from "../spec/records.js";

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

const str = (x: unknown): x is string => typeof x === "string";
const strOrNull = (x: unknown): x is string | null => x === null || typeof x === "string";
const stamp = (x: unknown): x is string => typeof x === "string" && TIMESTAMP.test(x);

/** The redemption in the schema's field order, or undefined when zod has to look at it. */
function fastRedemption(x: unknown): Redemption | undefined {
  if (!isRecord(x) || keyCount(x, 11) !== 11) return undefined;
  const { campaign: c, offer: o, brand: b, creator: cr, retailer: rt, exclusion: ex } = x;
  if (
    !str(x.id) ||
    !str(x.serializedGs1) ||
    !stamp(x.redeemedAt) ||
    !stamp(x.recordedAt) ||
    !str(x.countingState) ||
    !isRecord(c) ||
    keyCount(c, 3) !== 3 ||
    !str(c.id) ||
    !strOrNull(c.externalReference) ||
    !str(c.name) ||
    !isRecord(o) ||
    keyCount(o, 2) !== 2 ||
    !str(o.baseGs1) ||
    !strOrNull(o.title) ||
    !isRecord(b) ||
    keyCount(b, 2) !== 2 ||
    !str(b.id) ||
    !str(b.name) ||
    !(cr === null || (isRecord(cr) && keyCount(cr, 2) === 2 && str(cr.externalId) && str(cr.name))) ||
    !(rt === null || (isRecord(rt) && keyCount(rt, 2) === 2 && str(rt.emailDomain) && strOrNull(rt.name))) ||
    !(ex === null || (isRecord(ex) && keyCount(ex, 2) === 2 && stamp(ex.excludedAt) && strOrNull(ex.reason)))
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
    if (
      isRecord(body) &&
      Array.isArray(body.items) &&
      strOrNull(body.nextCursor) &&
      keyCount(body, 2) === 2
    ) {
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

// ---- the next cursor, read off the answer's text ----
// Each feed request needs the cursor of the page before it, so the time from a page's last byte to
// the next request is on every page's path. The cursor is the page's last member: it is read off the
// end of the text (a few hundred bytes) before the page is parsed and checked, so that the next
// request can go out first. This is a guess until the parse: the feed loop compares it with the
// parsed nextCursor and reads again from the parsed one when they differ.

/** `,"nextCursor":"..."}` (or `null`) at the very end of the text; the opening `{` or `,` is required. */
const TAIL_CURSOR = /[,{]\s*"nextCursor"\s*:\s*(?:"([^"\\\u0000-\u001f]{1,1024})"|(null))\s*\}\s*$/;

/**
 * The nextCursor at the end of a feed page's text: the cursor, null, or undefined when the end of
 * the text does not have that exact shape (a cursor with escapes, another member last, not JSON).
 */
export function feedCursorOfText(text: string): string | null | undefined {
  const m = TAIL_CURSOR.exec(text.length > 1200 ? text.slice(-1200) : text);
  if (!m) return undefined;
  if (m[2] === "null") return null;
  // A copy: the match is a slice of the page's text and would keep all of it alive (half a
  // megabyte, moved to the old generation, held as long as the cursor is). The class above holds
  // no quote, backslash or control character, so as a JSON string it reads back the same.
  return JSON.parse(`"${m[1]}"`) as string;
}

/**
 * Feed mode: `after` (opaque cursor) and `limit` (at most 1,000). `onCursor`, when given, is told the
 * next cursor as read off the answer's text (feedCursorOfText) before the page is parsed: a guess
 * that the page's parsed nextCursor confirms or not.
 */
export function redemptionFeed(
  c: ApiClient,
  q: { after?: string | undefined; limit?: number | undefined },
  onCursor?: ((cursor: string | null) => void) | undefined,
): Promise<RedemptionFeedPage> {
  return c.call({
    method: "GET",
    path: "/redemptions",
    query: q,
    retry: "read",
    schema: feedPageSchema as never,
    onText: onCursor
      ? (text) => {
          const cursor = feedCursorOfText(text);
          if (cursor !== undefined) onCursor(cursor);
        }
      : undefined,
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
