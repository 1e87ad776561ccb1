// links get CAMPAIGN EXTERNAL_ID: one creator's share link.
import { getLink } from "../../api/links.js";
import type { Context } from "../../context.js";
import { type LinkOptions, onLink } from "./link.js";

export async function linksGetRun(o: LinkOptions, ctx: Context): Promise<void> {
  await onLink(ctx, o, "get", (api, campaignId) => getLink(api, campaignId, o.externalId));
}
