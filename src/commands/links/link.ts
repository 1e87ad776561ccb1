// What links get | create | pause | resume share: the campaign and creator they act on, the record
// they print, and the hints for the errors they meet.
import type { ApiClient } from "../../api/client.js";
import type { Context } from "../../context.js";
import { ApiError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import type { ShareLink } from "../../spec/links.js";
import { resolveCampaign } from "../campaigns/resolve.js";
import { explainLinkConflict } from "./conflict.js";
import { shellWord } from "./jobs.js";

/** The positionals of links get | create | pause | resume. */
export interface LinkOptions {
  /** Campaign id or external reference. */
  campaign: string;
  externalId: string;
}

type Verb = "get" | "create" | "pause" | "resume";

function linkFields(l: ShareLink): [string, unknown][] {
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

/**
 * Resolves the campaign, runs `step` on the link of `o.externalId`, explains its error (with the
 * next step for that verb) and prints the link it answers.
 */
export async function onLink(
  ctx: Context,
  o: LinkOptions,
  verb: Verb,
  step: (api: ApiClient, campaignId: string, who: string) => Promise<ShareLink>,
): Promise<void> {
  const api = await ctx.api();
  const campaign = await resolveCampaign(api, o.campaign);
  const campaignArg = campaign.externalReference ?? campaign.id;
  const who = `${o.externalId} on campaign ${campaignArg}`;
  let link: ShareLink;
  try {
    link = await step(api, campaign.id, who);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409)
      throw await explainLinkConflict(api, err, campaign, campaignArg, o.externalId);
    throw explain(err, verb, o.externalId, campaignArg);
  }
  printRecord(ctx.io, link, linkFields(link));
}

function explain(err: unknown, verb: Verb, externalId: string, campaignArg: string): unknown {
  if (!(err instanceof ApiError)) return err;
  if (err.status === 404) {
    return err.withHint(
      verb === "create"
        ? `Is ${externalId} on the roster? Check: partner-cli roster get ${shellWord(externalId)}`
        : `No link for ${externalId} on this campaign? Create one: partner-cli links create ${shellWord(campaignArg)} ${shellWord(externalId)}`,
    );
  }
  return err;
}
