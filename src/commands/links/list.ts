import { listLinks } from "../../api/links.js";
import type { Context } from "../../context.js";
import type { Column } from "../../io/render.js";
import { stateStyle } from "../../io/table.js";
import type { ShareLink } from "../../spec/links.js";
import { resolveCampaign } from "../campaigns/resolve.js";
import { pagingOf, printPaged } from "../shared/list.js";

export interface LinksListOptions {
  campaign: string;
  active?: boolean | undefined;
  all?: boolean | undefined;
  limit?: number | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

const LINK_COLUMNS: Column<ShareLink>[] = [
  { header: "externalId", value: (l) => l.creator.externalId },
  { header: "name", value: (l) => l.creator.name, truncate: true },
  { header: "active", value: (l) => l.active, color: stateStyle },
  { header: "activeOnRoster", value: (l) => l.activeOnRoster, drop: 2 },
  { header: "shortCode", value: (l) => l.shortCode },
  { header: "shareUrl", value: (l) => l.shareUrl, truncate: true },
  { header: "assignedAt", value: (l) => l.assignedAt, drop: 1 },
];

export async function linksListRun(o: LinksListOptions, ctx: Context): Promise<void> {
  pagingOf(o); // bad paging flags are refused before any request
  const api = await ctx.api();
  const campaign = await resolveCampaign(api, o.campaign);
  await printPaged(ctx.io, o, {
    fetchPage: (page, pageSize) => listLinks(api, campaign.id, { active: o.active, page, pageSize }),
    columns: LINK_COLUMNS,
    noun: "links",
    emptyNote: "No share links match.",
  });
}
