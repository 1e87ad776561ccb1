import { listLinks } from "../../api/links.js";
import { allItems } from "../../api/paging.js";
import type { Context } from "../../context.js";
import { type Column, printList } from "../../io/render.js";
import { stateStyle } from "../../io/table.js";
import type { ShareLink } from "../../spec/links.js";
import { resolveCampaign } from "../campaigns/resolve.js";

export interface LinksListOptions {
  campaign: string;
  active?: boolean | undefined;
  all?: boolean | undefined;
}

export const LINK_COLUMNS: Column<ShareLink>[] = [
  { header: "externalId", value: (l) => l.creator.externalId },
  { header: "name", value: (l) => l.creator.name, truncate: true },
  { header: "active", value: (l) => l.active, color: stateStyle },
  { header: "activeOnRoster", value: (l) => l.activeOnRoster, drop: 2 },
  { header: "shortCode", value: (l) => l.shortCode },
  { header: "shareUrl", value: (l) => l.shareUrl, truncate: true },
  { header: "assignedAt", value: (l) => l.assignedAt, drop: 1 },
];

export async function linksListRun(o: LinksListOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const campaign = await resolveCampaign(api, o.campaign);
  let rows: ShareLink[];
  if (o.all) {
    rows = [];
    for await (const l of allItems((page) =>
      listLinks(api, campaign.id, { active: o.active, page, pageSize: 200 }),
    ))
      rows.push(l);
  } else {
    const page = await listLinks(api, campaign.id, { active: o.active, page: 0 });
    rows = page.items;
    if (page.totalCount > rows.length)
      ctx.io.err(
        `Showing ${rows.length} of ${page.totalCount} links; add --all for every one (or use links export).`,
      );
  }
  printList(ctx.io, rows, LINK_COLUMNS, "No share links match.");
}
