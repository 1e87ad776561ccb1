import { dollars, percent } from "../../io/money-words.js";
import { plural } from "../../io/words.js";
import { creatorCounts } from "../../api/reports.js";
import { allPages } from "../../api/paging.js";
import { checkRange, type RangeFlags } from "../shared/range.js";
import type { Context } from "../../context.js";
import { aliasColumns, type Column as RenderColumn, outTable, renderTsv } from "../../io/render.js";
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
const CREATOR_COUNT_TABLE = columns([
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

/**
 * The creator counts as a table (headed in words) or TSV (the CSV's names): the UUIDs beside the
 * references and names drop first.
 */
const COUNT_COLUMNS: RenderColumn<CreatorCount>[] = [
  {
    header: "creatorExternalId",
    title: "Creator",
    value: (c) => c.creator.externalId,
    field: "creator.externalId",
  },
  {
    header: "creatorName",
    title: "Name",
    value: (c) => c.creator.name,
    truncate: true,
    field: "creator.name",
  },
  { header: "campaignId", title: "Campaign ID", value: (c) => c.campaign.id, drop: 1, field: "campaign.id" },
  {
    header: "campaignExternalReference",
    title: "Campaign",
    value: (c) => c.campaign.externalReference,
    truncate: true,
    field: "campaign.externalReference",
  },
  {
    header: "campaignName",
    title: "Campaign name",
    value: (c) => c.campaign.name,
    truncate: true,
    drop: 4,
    field: "campaign.name",
  },
  { header: "brandId", title: "Brand ID", value: (c) => c.brand.id, drop: 2, field: "brand.id" },
  {
    header: "brandName",
    title: "Brand",
    value: (c) => c.brand.name,
    truncate: true,
    drop: 5,
    field: "brand.name",
  },
  { header: "verifiedRedemptions", title: "Verified", value: (c) => c.verifiedRedemptions },
  {
    header: "estimatedCommission",
    title: "Est. commission",
    value: (c) => c.estimatedCommission,
    kind: dollars,
  },
  { header: "commissionRate", title: "Rate", value: (c) => c.commissionRate, drop: 3, kind: percent },
  {
    header: "estimatedUnitSalePrice",
    title: "Unit price",
    value: (c) => c.estimatedUnitSalePrice,
    drop: 6,
    kind: dollars,
  },
];

/** Formats printed on stdout from the rows read (files are CSV or xlsx). */
const STDOUT_FORMATS = ["table", "tsv", "json", "ndjson"] as const;
type StdoutFormat = (typeof STDOUT_FORMATS)[number];

/**
 * The stdout format, when the rows are printed rather than written as CSV/xlsx: --format
 * table|tsv|json|ndjson, --json, or with no format a table on a terminal and TSV when piped. Refused before
 * any request: such a format with --out or --bom, and --json with another format.
 */
function stdoutFormat(o: CreatorsReportOptions, io: Context["io"]): StdoutFormat | undefined {
  const toStdout = o.out === undefined || o.out === "-";
  const given = o.format?.trim().toLowerCase();
  const printed = (STDOUT_FORMATS as readonly string[]).includes(given ?? "")
    ? (given as StdoutFormat)
    : undefined;
  if (printed && (!toStdout || o.bom))
    throw new UsageError(
      `--format ${printed} prints on stdout; --out and --bom are for CSV and xlsx files.`,
      "Drop --out/--bom, or use --format csv or xlsx.",
    );
  if (io.json && toStdout) {
    if (printed === "json" || printed === "ndjson") return printed;
    if (o.format !== undefined || o.bom)
      throw new UsageError(
        "--json prints the rows as JSON on stdout; --format and --bom are for files.",
        "Give --out FILE, or drop --format/--bom.",
      );
    return "json";
  }
  if (printed) return printed;
  // Nothing asked for on stdout: a table on a terminal, TSV when piped (as every report).
  if (toStdout && given === undefined && !o.bom) return io.stdoutIsTTY ? "table" : "tsv";
  chooseFormat(o, ["csv", "xlsx"]);
  return undefined;
}

function printCounts(io: Context["io"], format: StdoutFormat, items: CreatorCount[]): void {
  aliasColumns(io, COUNT_COLUMNS);
  if (format === "json") io.outJson(items);
  else if (format === "ndjson") io.out(items.map((c) => `${JSON.stringify(c)}\n`).join(""));
  else if (format === "table") outTable(io, items, COUNT_COLUMNS);
  else io.out(renderTsv(items, COUNT_COLUMNS));
}

/**
 * Creator counts across every page (no 366-day cap on this report): CSV or xlsx (stdout or --out),
 * a table on a terminal, or TSV, JSON or NDJSON with --format.
 */
export async function reportsCreatorsRun(o: CreatorsReportOptions, ctx: Context): Promise<void> {
  const range = checkRange(o, null);
  const printed = stdoutFormat(o, ctx.io);
  const api = await ctx.api();
  // Resolved before the output file is opened: a filter that matches nothing is exit 5 and no file.
  const campaignId = await resolveCampaignFilter(api, o.campaign);
  const brandId = (await resolveBrandFilter(api, o.brand))?.id;
  if (printed) {
    const items: CreatorCount[] = [];
    for await (const p of allPages((page) =>
      creatorCounts(api, { ...range, brandId, campaignId, page, pageSize: 200 }),
    )) {
      items.push(...p.items);
    }
    printCounts(ctx.io, printed, items);
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
  ctx.io.err(
    `Wrote ${plural(rows, "creator-campaign row")} for ${rangeText}${sink.path ? ` to ${sink.path}` : ""}.`,
  );
  if (ctx.io.json) ctx.io.outJson({ summary: { rows, out: sink.path } });
}
