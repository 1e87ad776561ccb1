import { creatorCounts } from "../../api/reports.js";
import { allPages } from "../../api/paging.js";
import { checkRange, type RangeFlags } from "../shared/range.js";
import type { Context } from "../../context.js";
import { chooseFormat, columns, openTableSink } from "../../io/table-file.js";
import { UsageError } from "../../errors.js";
import type { CreatorCount } from "../../spec/reports.js";
import { resolveBrandFilter, resolveCampaignFilter } from "../campaigns/resolve.js";

export interface CreatorsReportOptions extends RangeFlags {
  brand?: string | undefined;
  campaign?: string | undefined;
  out?: string | undefined;
  format?: string | undefined;
  bom?: boolean | undefined;
}

/** Columns of the creator counts (identifiers as text; counts, money and rates as numbers in xlsx). */
export const CREATOR_COUNT_TABLE = columns([
  ["creatorExternalId", "text"],
  ["creatorName", "text", 24],
  ["campaignId", "text", 38],
  ["campaignExternalReference", "text"],
  ["campaignName", "text", 24],
  ["brandId", "text", 38],
  ["brandName", "text", 20],
  ["verifiedRedemptions", "count"],
  ["estimatedCommission", "money"],
  ["commissionRate", "number"],
  ["estimatedUnitSalePrice", "money"],
]);

export const CREATOR_COUNT_COLUMNS = CREATOR_COUNT_TABLE.map((c) => c.name);

function row(c: CreatorCount) {
  return [
    c.creator.externalId,
    c.creator.name,
    c.campaign.id,
    c.campaign.externalReference,
    c.campaign.name,
    c.brand.id,
    c.brand.name,
    c.verifiedRedemptions,
    c.estimatedCommission,
    c.commissionRate,
    c.estimatedUnitSalePrice,
  ];
}

/** Creator counts across every page, as CSV (no 366-day cap on this report). */
export async function reportsCreatorsRun(o: CreatorsReportOptions, ctx: Context): Promise<void> {
  const range = checkRange(o, null);
  const toStdout = o.out === undefined || o.out === "-";
  if (!(ctx.io.json && toStdout)) chooseFormat(o);
  else if (o.format !== undefined || o.bom)
    throw new UsageError(
      "--json prints the rows as JSON on stdout; --format and --bom are for files.",
      "Give --out FILE, or drop --format/--bom.",
    );
  const api = await ctx.api();
  // Resolved before the output file is opened: a filter that matches nothing is exit 5 and no file.
  const campaignId = await resolveCampaignFilter(api, o.campaign);
  const brandId = (await resolveBrandFilter(api, o.brand))?.id;
  if (ctx.io.json && toStdout) {
    const items: CreatorCount[] = [];
    for await (const p of allPages((page) =>
      creatorCounts(api, { ...range, brandId, campaignId, page, pageSize: 200 }),
    )) {
      items.push(...p.items);
    }
    ctx.io.outJson(items);
    return;
  }
  const sink = await openTableSink(o, CREATOR_COUNT_TABLE, ctx.io.stdout, { sheetName: "Creators" });
  let rows = 0;
  let rangeText = "";
  try {
    for (let page = 0; ; page++) {
      const p = await creatorCounts(api, {
        ...range,
        brandId,
        campaignId,
        page,
        pageSize: 200,
      });
      await sink.write(p.items.map(row));
      rows += p.items.length;
      rangeText = `${p.range.from} through ${p.range.through} (${p.range.timeZone})`;
      if (p.items.length === 0 || (p.page + 1) * p.pageSize >= p.totalCount) break;
    }
    await sink.commit();
  } catch (err) {
    await sink.abort();
    throw err;
  }
  ctx.io.err(`Wrote ${rows} creator-campaign rows for ${rangeText}${sink.path ? ` to ${sink.path}` : ""}.`);
  if (ctx.io.json) ctx.io.outJson({ summary: { rows, out: sink.path } });
}
