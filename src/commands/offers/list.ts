import { allOffers, listOffers } from "../../api/offers.js";
import type { Context } from "../../context.js";
import { printList } from "../../io/render.js";
import type { Offer } from "../../spec/offers.js";
import { resolveBrandFilter } from "../campaigns/resolve.js";
import { KNOWN_OFFER_STATES, offerColumns } from "./format.js";

export interface OffersListOptions {
  brand?: string | undefined;
  state?: string | undefined;
  distributable?: boolean | undefined;
  all?: boolean | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

export async function offersListRun(opts: OffersListOptions, ctx: Context): Promise<void> {
  const state = opts.state?.trim() || undefined;
  if (state && !KNOWN_OFFER_STATES.includes(state)) {
    ctx.io.err(
      `Warning: "${state}" is not a known offer state (${KNOWN_OFFER_STATES.join(", ")}); asking the API for it anyway.`,
    );
  }
  const api = await ctx.api();
  const brandId = (await resolveBrandFilter(api, opts.brand))?.id;
  let rows: Offer[];
  let more: string | undefined;
  if (opts.all) {
    rows = [];
    for await (const o of allOffers(api, { brandId, state, pageSize: opts.pageSize ?? 200 })) rows.push(o);
  } else {
    const page = await listOffers(api, { brandId, state, page: opts.page, pageSize: opts.pageSize });
    rows = page.items;
    const shownTo = page.page * page.pageSize + page.items.length;
    if (shownTo < page.totalCount) {
      more = `Page ${page.page} holds offers ${page.page * page.pageSize + 1}-${shownTo} of ${page.totalCount}; use --page ${page.page + 1} for the next or --all for every page.`;
    }
  }
  if (opts.distributable) rows = rows.filter((o) => o.canDistribute === true);
  printList(
    ctx.io,
    rows,
    offerColumns,
    opts.distributable && !opts.all && more ? "No distributable offers on this page." : "No offers match.",
  );
  if (more) ctx.io.err(more);
}
