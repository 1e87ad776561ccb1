import { unknownProfile } from "../../config/profiles.js";
import type { Context } from "../../context.js";
import type { NoOptions } from "../shared/run.js";
import { UsageError } from "../../errors.js";
import { removeProfile } from "../profiles/remove.js";

/** logout: the profile named by --profile, else PARTNER_PROFILE, else the current one. */
export async function logoutRun(_opts: NoOptions, ctx: Context): Promise<void> {
  const data = await (await ctx.config()).read();
  const name = ctx.globals.profile || ctx.env.PARTNER_PROFILE || data.currentProfile;
  if (!name) {
    const known = Object.keys(data.profiles);
    if (known.length === 0) throw new UsageError("No profile is stored, so there is nothing to log out of.");
    throw new UsageError(
      "There is no current profile to log out of.",
      `Name one with --profile (stored: ${known.sort().join(", ")}).`,
    );
  }
  if (!data.profiles[name]) throw unknownProfile(name, Object.keys(data.profiles));
  await removeProfile(ctx, name);
}
