// sandbox view SHORT_CODE [--origin O]: one shopper opening a share link (counted in linkViews once
// per network origin per link per reporting day).
import { recordSandboxView } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";

export interface SandboxViewOptions {
  shortCode: string;
  /** The shopper's network origin (default: this machine's address as the sandbox sees it). */
  origin?: string | undefined;
}

export async function sandboxViewRun(opts: SandboxViewOptions, ctx: Context): Promise<void> {
  const view = await recordSandboxView(await ctx.api(), opts.shortCode.trim(), opts.origin);
  printRecord(ctx.io, view, [
    ["campaignId", view.campaignId],
    ["externalId", view.externalId],
    ["origin", view.origin],
    ["at", view.at],
  ]);
}
