// sandbox time-zone TZ: the organization's reporting time zone (report days, presets and range reads).
import { setSandboxOrganization } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";

export interface SandboxTimeZoneOptions {
  /** An IANA time-zone name. */
  timeZone: string;
}

export async function sandboxTimeZoneRun(opts: SandboxTimeZoneOptions, ctx: Context): Promise<void> {
  const org = await setSandboxOrganization(await ctx.api(), { reportingTimeZone: opts.timeZone.trim() });
  printRecord(ctx.io, org, [
    ["organization", org.name],
    ["reportingTimeZone", org.reportingTimeZone],
  ]);
}
