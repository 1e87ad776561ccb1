import { fmt, plural } from "../../io/words.js";
import { redemptionRange } from "../../api/redemptions.js";
import { checkRange, type RangeFlags } from "../shared/range.js";
import type { Context } from "../../context.js";
import type { Column } from "../../io/render.js";
import { stateStyle } from "../../io/table.js";
import { resolveBrandFilter, resolveCampaignFilter } from "../campaigns/resolve.js";
import { withFlagNames } from "../shared/flag-names.js";
import { type ListPaging, pagingOf, printPaged } from "../shared/list.js";
import type { Redemption, RedemptionRangePage } from "../../spec/redemptions.js";

export interface RedemptionsListOptions extends RangeFlags, ListPaging {
  campaign?: string | undefined;
  brand?: string | undefined;
  state?: string | undefined;
}

const REDEMPTION_LIST_COLUMNS: Column<Redemption>[] = [
  { header: "id", value: (r) => r.id, drop: 1 },
  { header: "serializedGs1", value: (r) => r.serializedGs1 },
  { header: "redeemedAt", value: (r) => r.redeemedAt },
  { header: "state", value: (r) => r.countingState, color: stateStyle },
  { header: "campaign", value: (r) => r.campaign.name, truncate: true },
  { header: "creator", value: (r) => r.creator?.externalId },
  { header: "brand", value: (r) => r.brand.name, truncate: true, drop: 2 },
];

/** The query parameters a 400 may name, as the flags that set them. */
const FLAG_OF_PARAMETER = { countingState: "--state", campaignId: "--campaign", brandId: "--brand" };

/**
 * Range mode: the default page, every page (--all) or at most --limit redemptions; the pages after
 * the first are read with the asOf of the first, so they stay stable while redemptions arrive.
 */
export async function redemptionsListRun(o: RedemptionsListOptions, ctx: Context): Promise<void> {
  const range = checkRange(o);
  pagingOf(o); // bad paging flags are refused before any request
  const api = await ctx.api();
  // --campaign takes an id or a reference, --brand an id or a name: resolved before any read, so a
  // value that matches nothing is exit 5, not an empty list.
  const campaignId = await resolveCampaignFilter(api, o.campaign);
  const brandId = (await resolveBrandFilter(api, o.brand))?.id;
  const base = { ...range, campaignId, brandId, countingState: o.state };
  let first: RedemptionRangePage | undefined;
  const r = await printPaged(ctx.io, o, {
    fetchPage: async (page, pageSize) => {
      const p = await withFlagNames(FLAG_OF_PARAMETER, () =>
        redemptionRange(api, { ...base, page, pageSize, asOf: first?.asOf }),
      );
      first ??= p;
      return p;
    },
    columns: REDEMPTION_LIST_COLUMNS,
    noun: "redemptions",
    emptyNote: "No redemptions in this range.",
  });
  if (!first) return;
  const w = first.range;
  ctx.io.err(
    `${fmt(r.shown)} of ${plural(first.totalCount, "redemption")}, ${w.from} through ${w.through} (${w.timeZone}${w.preset !== "custom" ? `, ${w.preset}` : ""}), as of ${first.asOf}.`,
  );
}
