// campaigns activate | pause | end (activate.ts, pause.ts, end.ts): POST /campaigns/{id}/status with the desired status.
import { getCampaign, setCampaignStatus } from "../../api/campaigns.js";
import type { Context } from "../../context.js";
import { ApiError, DeclinedError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import type { StatusTarget } from "../../spec/campaigns.js";
import { campaignFields } from "./form.js";
import { resolveCampaign } from "./resolve.js";
import { campaignConflictHint } from "./view-only.js";

const VERB: Record<StatusTarget, string> = { active: "activate", paused: "pause", ended: "end" };
const DONE: Record<StatusTarget, string> = { active: "Activated", paused: "Paused", ended: "Ended" };

export async function campaignsStatusRun(
  o: { idOrRef: string; status: StatusTarget },
  ctx: Context,
): Promise<void> {
  const api = await ctx.api();
  const campaign = await resolveCampaign(api, o.idOrRef);
  const label = `"${campaign.name}" (${campaign.externalReference ?? campaign.id})`;
  if (campaign.status === o.status) {
    ctx.io.err(`Campaign ${label} is already ${o.status}; nothing changed.`);
    printRecord(ctx.io, campaign, campaignFields(campaign));
    return;
  }
  if (o.status === "ended") await confirmEnd(ctx, label, o.idOrRef);
  let updated: typeof campaign;
  try {
    updated = await setCampaignStatus(api, campaign.id, o.status);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 409 || err.status === 400)) {
      const now = await getCampaign(api, campaign.id).catch(() => campaign);
      const arg = now.externalReference ?? now.id;
      const why = campaignConflictHint(now, arg);
      const allowed = `From ${now.status} it can go to: ${now.allowedStatuses.join(", ")}.`;
      throw err.withHint(`Cannot ${VERB[o.status]} campaign ${label}. ${why ?? allowed}`);
    }
    throw err;
  }
  ctx.io.err(`${DONE[o.status]} campaign ${label}: ${campaign.status} → ${updated.status}.`);
  printRecord(ctx.io, updated, campaignFields(updated));
}

async function confirmEnd(ctx: Context, label: string, idOrRef: string): Promise<void> {
  if (ctx.globals.yes) return;
  if (!ctx.canPrompt()) {
    throw new DeclinedError(
      `Ending campaign ${label} is final; refusing without confirmation.`,
      `Run "partner-cli campaigns end ${idOrRef} --yes" to confirm.`,
    );
  }
  const ok = await ctx.prompter().confirm({
    message: `End campaign ${label}? Ending is final: no new codes, links cannot be added.`,
    default: false,
  });
  if (!ok) throw new DeclinedError("Not ended; nothing changed.");
}
