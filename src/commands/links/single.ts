// links get | create | pause | resume CAMPAIGN EXTERNAL_ID.
import { createLink, getLink, setLinkActive } from "../../api/links.js";
import type { Context } from "../../context.js";
import { ApiError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import type { ShareLink } from "../../spec/links.js";
import { resolveCampaign } from "../campaigns/resolve.js";
import { shellWord } from "./jobs.js";

export interface LinksSingleOptions {
  verb: "get" | "create" | "pause" | "resume";
  campaign: string;
  externalId: string;
}

export function linkFields(l: ShareLink): [string, unknown][] {
  return [
    ["externalId", l.creator.externalId],
    ["name", l.creator.name],
    ["campaignId", l.campaignId],
    ["active", l.active],
    ["activeOnRoster", l.activeOnRoster],
    ["shareUrl", l.shareUrl],
    ["shortCode", l.shortCode],
    ["statsUrl", l.statsUrl],
    ["assignedAt", l.assignedAt],
    ["deactivatedAt", l.deactivatedAt],
  ];
}

export async function linksSingleRun(o: LinksSingleOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const campaign = await resolveCampaign(api, o.campaign);
  const id = o.externalId;
  const who = `${id} on campaign ${campaign.externalReference ?? campaign.id}`;
  let link: ShareLink;
  try {
    switch (o.verb) {
      case "get":
        link = await getLink(api, campaign.id, id);
        break;
      case "create": {
        const r = await createLink(api, campaign.id, id);
        link = r.link;
        ctx.io.err(
          r.created
            ? `Created the share link for ${who}.`
            : `The share link for ${who} already existed (status kept: ${link.active ? "active" : "paused"}).`,
        );
        break;
      }
      case "pause":
      case "resume": {
        const active = o.verb === "resume";
        // A state already reached is success with nothing sent (as campaigns activate|pause are).
        const current = await getLink(api, campaign.id, id);
        if (current.active === active) {
          link = current;
          ctx.io.err(
            `The share link for ${who} is already ${active ? "active" : "paused"}; nothing changed.`,
          );
          break;
        }
        link = await setLinkActive(api, campaign.id, id, active);
        ctx.io.err(`${active ? "Resumed" : "Paused"} the share link for ${who}.`);
        break;
      }
    }
  } catch (err) {
    throw explain(err, o, campaign.externalReference ?? campaign.id);
  }
  printRecord(ctx.io, link, linkFields(link));
}

function explain(err: unknown, o: LinksSingleOptions, campaignArg: string): unknown {
  if (!(err instanceof ApiError)) return err;
  if (err.status === 404) {
    return err.withHint(
      o.verb === "create"
        ? `Is ${o.externalId} on the roster? Check: partner-cli roster get ${shellWord(o.externalId)}`
        : `No link for ${o.externalId} on this campaign? Create one: partner-cli links create ${shellWord(campaignArg)} ${shellWord(o.externalId)}`,
    );
  }
  if (err.status === 409 && o.verb === "create") {
    return err.withHint(
      "A link cannot be created on an ended campaign, for a deactivated creator, or when the organization lost access to the brand.",
    );
  }
  return err;
}
