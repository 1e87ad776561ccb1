import { getMe } from "../../api/me.js";
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";

export async function meRun(ctx: Context): Promise<void> {
  const me = await getMe(await ctx.api());
  printRecord(ctx.io, me, [
    ["organization", me.organization.name],
    ["organizationId", me.organization.id],
    ["timeZone", me.organization.reportingTimeZone],
    ["key", me.key.name],
    ["canWrite", me.key.canWrite],
  ]);
}
