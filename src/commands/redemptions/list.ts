import { redemptionRange } from "../../api/redemptions.js";
import { checkRange, type RangeFlags } from "../shared/range.js";
import type { Context } from "../../context.js";
import { type Column, printList } from "../../io/render.js";
import { stateStyle } from "../../io/table.js";
import { resolveBrandFilter, resolveCampaignFilter } from "../campaigns/resolve.js";
import type { Redemption, RedemptionRangePage } from "../../spec/redemptions.js";

export interface RedemptionsListOptions extends RangeFlags {
  campaign?: string | undefined;
  brand?: string | undefined;
  state?: string | undefined;
  all?: boolean | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

export const REDEMPTION_LIST_COLUMNS: Column<Redemption>[] = [
  { header: "id", value: (r) => r.id, drop: 1 },
  { header: "serializedGs1", value: (r) => r.serializedGs1 },
  { header: "redeemedAt", value: (r) => r.redeemedAt },
  { header: "state", value: (r) => r.countingState, color: stateStyle },
  { header: "campaign", value: (r) => r.campaign.name, truncate: true },
  { header: "creator", value: (r) => r.creator?.externalId },
  { header: "brand", value: (r) => r.brand.name, truncate: true, drop: 2 },
];

/** Range mode; with --all every page is read with the asOf of the first, so later pages stay stable. */
export async function redemptionsListRun(o: RedemptionsListOptions, ctx: Context): Promise<void> {
  const range = checkRange(o);
  const api = await ctx.api();
  // --campaign takes an id or a reference, --brand an id or a name: resolved before any read, so a
  // value that matches nothing is exit 5, not an empty list.
  const campaignId = await resolveCampaignFilter(api, o.campaign);
  const brandId = (await resolveBrandFilter(api, o.brand))?.id;
  const base = { ...range, campaignId, brandId, countingState: o.state };
  const first: RedemptionRangePage = await redemptionRange(api, {
    ...base,
    page: o.page ?? 0,
    pageSize: o.all ? 200 : o.pageSize,
  });
  const items = [...first.items];
  if (o.all) {
    for (let page = first.page + 1; page * first.pageSize < first.totalCount; page++) {
      const p = await redemptionRange(api, { ...base, page, pageSize: first.pageSize, asOf: first.asOf });
      if (p.items.length === 0) break;
      items.push(...p.items);
    }
  }
  printList(ctx.io, items, REDEMPTION_LIST_COLUMNS, "No redemptions in this range.");
  const r = first.range;
  const shown = o.all ? `all ${items.length}` : `${items.length} of ${first.totalCount}`;
  ctx.io.err(
    `${shown} redemptions, ${r.from} through ${r.through} (${r.timeZone}${r.preset !== "custom" ? `, ${r.preset}` : ""}), as of ${first.asOf}.`,
  );
  if (!o.all && first.totalCount > (first.page + 1) * first.pageSize)
    ctx.io.err("More pages: use --page N or --all.");
}
