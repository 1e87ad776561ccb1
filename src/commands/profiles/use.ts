import { unknownProfile } from "../../config/profiles.js";
import type { Context } from "../../context.js";

export interface ProfilesUseOptions {
  name: string;
}

export async function profilesUseRun({ name }: ProfilesUseOptions, ctx: Context): Promise<void> {
  const store = await ctx.config();
  const p = await store.update((d) => {
    const found = d.profiles[name];
    if (!found) throw unknownProfile(name, Object.keys(d.profiles));
    d.currentProfile = name;
    return found;
  });
  if (ctx.io.json) ctx.io.outJson({ current: name });
  ctx.io.err(
    `Now using profile "${name}" (${p.baseUrl}${p.organization ? `, ${p.organization.name}` : ""}).`,
  );
  if (ctx.env.PARTNER_PROFILE && ctx.env.PARTNER_PROFILE !== name) {
    ctx.io.err(`Note: PARTNER_PROFILE=${ctx.env.PARTNER_PROFILE} is set and wins over the current profile.`);
  }
  if (ctx.env.PARTNER_API_KEY) {
    ctx.io.err("Note: PARTNER_API_KEY is set and wins over the stored key.");
  }
}
