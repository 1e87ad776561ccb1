// links pause | resume (pause.ts, resume.ts): PATCH the link's active flag; a state already reached
// is success with nothing sent (as campaigns activate | pause are).
import { getLink, setLinkActive } from "../../api/links.js";
import type { Context } from "../../context.js";
import { type LinkOptions, onLink } from "./link.js";

export async function switchLink(o: LinkOptions, active: boolean, ctx: Context): Promise<void> {
  await onLink(ctx, o, active ? "resume" : "pause", async (api, campaignId, who) => {
    const current = await getLink(api, campaignId, o.externalId);
    if (current.active === active) {
      ctx.io.err(`The share link for ${who} is already ${active ? "active" : "paused"}; nothing changed.`);
      return current;
    }
    const link = await setLinkActive(api, campaignId, o.externalId, active);
    ctx.io.err(`${active ? "Resumed" : "Paused"} the share link for ${who}.`);
    return link;
  });
}
