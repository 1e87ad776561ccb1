import { getOffer } from "../../api/offers.js";
import type { Context } from "../../context.js";
import { ApiError, UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import { offerFields } from "./format.js";
import { lostZerosNote, withLostZeros } from "./lost-zeros.js";

export interface OffersGetOptions {
  baseGs1: string;
}

export async function offersGetRun(opts: OffersGetOptions, ctx: Context): Promise<void> {
  const baseGs1 = opts.baseGs1.trim();
  if (!baseGs1)
    throw new UsageError("BASE_GS1 must not be empty.", 'Run "partner-cli offers list" to see offers.');
  let offer: Awaited<ReturnType<typeof getOffer>>;
  const api = await ctx.api();
  try {
    offer = await getOffer(api, baseGs1);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      const meant = lostZerosNote(await withLostZeros(api, baseGs1));
      throw e.withHint(
        `No offer ${baseGs1} is visible to this organization.${meant || ' Run "partner-cli offers list" to see the offers you can use.'}`,
      );
    }
    throw e;
  }
  printRecord(ctx.io, offer, offerFields(offer));
}
