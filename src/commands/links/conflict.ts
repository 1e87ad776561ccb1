// The 409 of a link create or an assignment, with the hint for its actual cause. The spec answers
// `conflict` for all of them (campaign ended, brand access lost, creator deactivated, another
// assignment running), so the cause is read from the state as it is now, not guessed from wording.
import { getCampaign } from "../../api/campaigns.js";
import type { ApiClient } from "../../api/client.js";
import { getCreator } from "../../api/creators.js";
import type { ApiError } from "../../errors.js";
import type { Campaign } from "../../spec/campaigns.js";
import { campaignConflictHint } from "../campaigns/view-only.js";
import { followCommand, shellWord } from "./jobs.js";

const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const ASSIGNMENT_WORDS = /assign|job|running|queued|progress/i;

/** The job a 409 names as running (in its message or details), if any. */
function runningJob(err: ApiError): string | undefined {
  if (!ASSIGNMENT_WORDS.test(err.message)) return undefined;
  const texts = [err.message, ...Object.values(err.details ?? {}).flat()];
  return texts.map((t) => UUID_IN_TEXT.exec(t)?.[0]).find(Boolean);
}

/**
 * `err` (a 409 on campaign `campaignArg`) with the hint of its cause: the campaign (read again) has
 * ended or is view-only; the creator (`externalId`, for a single link) is deactivated; another
 * assignment is running. An unknown cause keeps the service's message alone.
 */
export async function explainLinkConflict(
  api: ApiClient,
  err: ApiError,
  campaign: Campaign,
  campaignArg: string,
  externalId?: string,
): Promise<ApiError> {
  const now = await getCampaign(api, campaign.id).catch(() => campaign);
  const why = campaignConflictHint(now, campaignArg);
  if (why) return err.withHint(why);
  if (externalId !== undefined) {
    const creator = await getCreator(api, externalId).catch(() => undefined);
    if (creator && !creator.active)
      return err.withHint(
        `Creator ${externalId} is deactivated on the roster, and only active creators get links. Reactivate it, then run this again: partner-cli roster set ${shellWord(externalId)} --active`,
      );
  }
  const job = runningJob(err);
  if (job)
    return err.withHint(
      `Assignment job ${job} is still running for this campaign. Follow it: ${followCommand(campaignArg, job)}`,
    );
  if (ASSIGNMENT_WORDS.test(err.message))
    return err.withHint(
      `Another assignment is running for this campaign; wait for it, then run the command again. Its links so far: partner-cli links list ${shellWord(campaignArg)}`,
    );
  return err;
}
