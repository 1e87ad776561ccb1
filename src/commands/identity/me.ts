import { getMe } from "../../api/me.js";
import type { Context, Target } from "../../context.js";
import { printRecord } from "../../io/render.js";
import type { NoOptions } from "../shared/run.js";

/** One stderr line naming where the key and URL came from (the embedded sandbox announces itself). */
function describeTarget(t: Target): string | undefined {
  switch (t.source) {
    case "env":
      return `Using the key in PARTNER_API_KEY against ${t.baseUrl}${t.profileName ? ` (it overrides the key of profile "${t.profileName}")` : ""}.`;
    case "profile":
      return `Using profile "${t.profileName}" (${t.baseUrl}).`;
    default:
      return undefined;
  }
}

export async function meRun(_opts: NoOptions, ctx: Context): Promise<void> {
  const target = await ctx.target();
  const line = describeTarget(target);
  if (line) ctx.io.err(line);
  const me = await getMe(await ctx.api());
  printRecord(ctx.io, me, [
    ["organization", me.organization.name],
    ["organizationId", me.organization.id],
    ["timeZone", me.organization.reportingTimeZone],
    ["key", me.key.name],
    ["canWrite", me.key.canWrite],
  ]);
}
