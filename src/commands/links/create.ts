// links create CAMPAIGN EXTERNAL_ID: give one creator a share link (an existing one is returned as is).
import { createLink } from "../../api/links.js";
import type { Context } from "../../context.js";
import { type LinkOptions, onLink } from "./link.js";

export async function linksCreateRun(o: LinkOptions, ctx: Context): Promise<void> {
  await onLink(ctx, o, "create", async (api, campaignId, who) => {
    const r = await createLink(api, campaignId, o.externalId);
    ctx.io.err(
      r.created
        ? `Created the share link for ${who}.`
        : `The share link for ${who} already existed (status kept: ${r.link.active ? "active" : "paused"}).`,
    );
    return r.link;
  });
}
