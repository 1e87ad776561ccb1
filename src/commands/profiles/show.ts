import { profileView, unknownProfile } from "../../config/profiles.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";

/** profiles show [NAME]: NAME, else --profile, else PARTNER_PROFILE, else the current profile. */
export interface ProfilesShowOptions {
  name?: string | undefined;
}

export async function profilesShowRun(opts: ProfilesShowOptions, ctx: Context): Promise<void> {
  const nameArg = opts.name;
  const data = await (await ctx.config()).read();
  const name = nameArg || ctx.globals.profile || ctx.env.PARTNER_PROFILE || data.currentProfile;
  if (!name) {
    throw new UsageError(
      "There is no current profile to show.",
      Object.keys(data.profiles).length
        ? 'Name one: "partner-cli profiles show NAME" (see "partner-cli profiles list").'
        : 'No profiles are stored; run "partner-cli login" first.',
    );
  }
  const p = data.profiles[name];
  if (!p) throw unknownProfile(name, Object.keys(data.profiles));
  const v = profileView(name, p, data.currentProfile === name);
  printRecord(ctx.io, v, [
    ["name", v.name],
    ["current", v.current],
    ["baseUrl", v.baseUrl],
    ["organization", v.organization?.name],
    ["organizationId", v.organization?.id],
    ["timeZone", v.organization?.reportingTimeZone],
    ["keyName", v.keyName],
    ["canWrite", v.canWrite],
    ["apiKey", v.apiKey],
    ["keyStorage", v.keyStorage],
    ["savedAt", v.savedAt],
  ]);
}
