// sandbox offer BASE_GS1 [--state S] [--codes-available N|unknown]: change an offer as the brand or
// the coupon network would (its state, the codes left on it). Only `available` offers can be
// distributed; the codes available bound new campaigns and raised code limits.
import { setSandboxOffer } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";

export interface SandboxOfferOptions {
  baseGs1: string;
  state?: string | undefined;
  /** A count, or "unknown" (null: the service does not know). */
  codesAvailable?: string | undefined;
}

function codesOf(raw: string | undefined): number | null | undefined {
  if (raw === undefined) return undefined;
  const t = raw.trim();
  if (t.toLowerCase() === "unknown") return null;
  if (/^\d+$/.test(t) && Number.isSafeInteger(Number(t))) return Number(t);
  throw new UsageError(
    `--codes-available "${raw}" is not a whole number of codes or "unknown". Nothing was changed.`,
    "Example: --codes-available 500, or --codes-available unknown",
  );
}

export async function sandboxOfferRun(opts: SandboxOfferOptions, ctx: Context): Promise<void> {
  const codesAvailable = codesOf(opts.codesAvailable);
  if (opts.state === undefined && codesAvailable === undefined)
    throw new UsageError(
      "Say what to change: --state STATE and/or --codes-available N. Nothing was changed.",
      "Example: partner-cli sandbox offer 0098765000021 --state temporarily_unavailable",
    );
  const change = {
    ...(opts.state === undefined ? {} : { state: opts.state }),
    ...(codesAvailable === undefined ? {} : { codesAvailable }),
  };
  const offer = await setSandboxOffer(await ctx.api(), opts.baseGs1.trim(), change);
  printRecord(ctx.io, offer, [
    ["baseGs1", offer.baseGs1],
    ["state", offer.state],
    ["canDistribute", offer.canDistribute],
    ["codesAvailable", offer.codesAvailable],
    ["lastUpdatedAt", offer.lastUpdatedAt],
  ]);
}
