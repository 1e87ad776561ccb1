// sandbox supply-alerts [--recipients LIST | --off]: who gets the organization's supply alert emails.
// The spec's campaign.supply_low / supply_exhausted events follow those emails: with no recipients
// the sandbox produces none. Without an option: prints the current recipients.
import { setSandboxOrganization } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";

export interface SandboxSupplyAlertsOptions {
  /** Comma-separated email addresses. */
  recipients?: string | undefined;
  off?: boolean | undefined;
}

export async function sandboxSupplyAlertsRun(opts: SandboxSupplyAlertsOptions, ctx: Context): Promise<void> {
  if (opts.off && opts.recipients !== undefined)
    throw new UsageError("--recipients and --off contradict each other; give one. Nothing was changed.");
  let alertRecipients: string[] | undefined;
  if (opts.off) alertRecipients = [];
  else if (opts.recipients !== undefined) {
    alertRecipients = opts.recipients
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (alertRecipients.length === 0)
      throw new UsageError(
        "--recipients names no address. Nothing was changed.",
        "Example: --recipients ops@example.com,buyer@example.com (or --off for none)",
      );
  }
  const org = await setSandboxOrganization(
    await ctx.api(),
    alertRecipients === undefined ? {} : { alertRecipients },
  );
  const list = Array.isArray(org.alertRecipients) ? org.alertRecipients.map(String) : [];
  printRecord(ctx.io, org, [
    ["organization", org.name],
    ["alertRecipients", list.join(", ")],
  ]);
  if (!ctx.io.json && list.length === 0)
    ctx.io.err(
      "No recipients: supply alerts are not sent, so no campaign.supply_low or supply_exhausted events.",
    );
}
