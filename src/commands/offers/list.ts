// offers list: one page (default), every page (--all) or at most --limit offers of GET /offers.
import { withFlagNames } from "../shared/flag-names.js";
import { listOffers } from "../../api/offers.js";
import type { Context } from "../../context.js";
import type { Offer } from "../../spec/offers.js";
import { resolveBrandFilter } from "../campaigns/resolve.js";
import { type ListPaging, pagingOf, printPaged } from "../shared/list.js";
import { KNOWN_OFFER_STATES, offerColumns } from "./format.js";

export interface OffersListOptions extends ListPaging {
  brand?: string | undefined;
  state?: string | undefined;
  distributable?: boolean | undefined;
}

export async function offersListRun(opts: OffersListOptions, ctx: Context): Promise<void> {
  const state = opts.state?.trim() || undefined;
  const { walk } = pagingOf(opts);
  if (state && !KNOWN_OFFER_STATES.includes(state)) {
    ctx.io.err(
      `Warning: "${state}" is not a known offer state (${KNOWN_OFFER_STATES.join(", ")}); asking the API for it anyway.`,
    );
  }
  const api = await ctx.api();
  const brandId = (await resolveBrandFilter(api, opts.brand))?.id;
  // --distributable is filtered here (canDistribute), within the page read or across the pages read.
  await printPaged(ctx.io, opts, {
    fetchPage: (page, pageSize) =>
      withFlagNames({ state: "--state", brandId: "--brand" }, () =>
        listOffers(api, { brandId, state, page, pageSize }),
      ),
    columns: offerColumns,
    noun: opts.distributable ? "distributable offers" : "offers",
    emptyNote: opts.distributable && !walk ? "No distributable offers on this page." : "No offers match.",
    keep: opts.distributable ? (o: Offer) => o.canDistribute === true : undefined,
  });
}
