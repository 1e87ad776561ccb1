// links export CAMPAIGN [--out FILE]: every share link as CSV (stdout, or a file written atomically)
// or as an xlsx workbook. The file holds each creator's private stats URL: it is created 0600.
import { listLinks } from "../../api/links.js";
import { allPages } from "../../api/paging.js";
import type { Context } from "../../context.js";
import { chooseRowsOutput, columns, openRowsOutput } from "../../io/table-file.js";
import { resolveCampaign } from "../campaigns/resolve.js";

const LINK_EXPORT_COLUMNS = columns([
  ["externalId", "text"],
  ["name", "text", 24],
  ["shareUrl", "text", 40],
  ["shortCode", "text", 12],
  ["statsUrl", "text", 48],
  ["active", "boolean"],
]);

export interface LinksExportOptions {
  campaign: string;
  out?: string | undefined;
  format?: string | undefined;
  bom?: boolean | undefined;
}

export async function linksExportRun(o: LinksExportOptions, ctx: Context): Promise<void> {
  chooseRowsOutput(o, ctx.io);
  const api = await ctx.api();
  const campaign = await resolveCampaign(api, o.campaign);
  const sink = await openRowsOutput(o, LINK_EXPORT_COLUMNS, ctx.io, { sheetName: "Links" });
  let rows = 0;
  try {
    for await (const page of allPages((page) => listLinks(api, campaign.id, { page, pageSize: 200 }))) {
      if (ctx.signal.aborted) break;
      await sink.write(
        page.items.map((l) => [
          l.creator.externalId,
          l.creator.name,
          l.shareUrl,
          l.shortCode,
          l.statsUrl,
          l.active,
        ]),
      );
      rows += page.items.length;
    }
    if (ctx.signal.aborted) {
      const { CancelledError } = await import("../../errors.js");
      throw new CancelledError(
        `Interrupted; ${o.out && o.out !== "-" ? `${o.out} was not written` : "the output is incomplete"}.`,
      );
    }
    await sink.commit();
  } catch (err) {
    await sink.abort();
    throw err;
  }
  if (ctx.io.json && sink.path) ctx.io.outJson({ summary: { rows, out: sink.path } });
  ctx.io.err(
    `Exported ${rows.toLocaleString("en-US")} share link${rows === 1 ? "" : "s"} of campaign ${campaign.externalReference ?? campaign.id}${sink.path ? ` to ${sink.path}` : ""}.`,
  );
}
