// links export CAMPAIGN [--out FILE]: every share link as CSV (stdout, or a file written atomically).
import { listLinks } from "../../api/links.js";
import { allPages } from "../../api/paging.js";
import type { Context } from "../../context.js";
import { openCsvSink } from "../../csv/write.js";
import { resolveCampaign } from "../campaigns/resolve.js";

export const LINK_EXPORT_HEADER = [
  "externalId",
  "name",
  "shareUrl",
  "shortCode",
  "statsUrl",
  "active",
] as const;

export async function linksExportRun(
  o: { campaign: string; out?: string | undefined },
  ctx: Context,
): Promise<void> {
  const api = await ctx.api();
  const campaign = await resolveCampaign(api, o.campaign);
  const sink = await openCsvSink(o.out, LINK_EXPORT_HEADER, ctx.io.stdout);
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
  ctx.io.err(
    `Exported ${rows.toLocaleString("en-US")} share link${rows === 1 ? "" : "s"} of campaign ${campaign.externalReference ?? campaign.id}${sink.path ? ` to ${sink.path}` : ""}.`,
  );
}
