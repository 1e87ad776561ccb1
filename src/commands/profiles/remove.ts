import { keychainAccount, keychainDelete } from "../../config/keychain.js";
import { storedKeyMask, unknownProfile } from "../../config/profiles.js";
import type { Context } from "../../context.js";
import { DeclinedError } from "../../errors.js";

/** Removes a stored profile (and its key); says so and what is current afterwards. */
export async function removeProfile(ctx: Context, name: string): Promise<void> {
  const store = await ctx.config();
  const result = await store.update((d) => {
    const p = d.profiles[name];
    if (!p) throw unknownProfile(name, Object.keys(d.profiles));
    delete d.profiles[name];
    const wasCurrent = d.currentProfile === name;
    if (wasCurrent) d.currentProfile = undefined;
    return {
      masked: storedKeyMask(p),
      inKeychain: p.keyStorage === "keychain",
      wasCurrent,
      left: Object.keys(d.profiles).sort(),
    };
  });
  // The profile is gone from the file first: a keychain that does not answer leaves an orphan
  // entry at worst, never a profile whose key cannot be read.
  const forgotten = result.inKeychain ? await keychainDelete(keychainAccount(store.dir, name)) : true;
  if (ctx.io.json) {
    ctx.io.outJson({ removed: name, wasCurrent: result.wasCurrent, profiles: result.left });
  }
  ctx.io.err(
    `Removed profile "${name}" and its stored key (${result.masked}). The key itself stays valid until it is revoked in the service's settings.`,
  );
  if (!forgotten) {
    ctx.io.err(
      `Note: the OS keychain did not answer, so its entry for this key may remain (service "partner-cli", account "${keychainAccount(store.dir, name)}"); remove it with your keychain's own tool.`,
    );
  }
  if (result.wasCurrent) {
    ctx.io.err(
      result.left.length
        ? `There is no current profile now; choose one with "partner-cli profiles use NAME" (stored: ${result.left.join(", ")}).`
        : 'No profiles are left: until you "partner-cli login", commands use the embedded sandbox at a terminal or with --sandbox (elsewhere they exit 4).',
    );
  }
}

export interface ProfilesRemoveOptions {
  name: string;
}

export async function profilesRemoveRun({ name }: ProfilesRemoveOptions, ctx: Context): Promise<void> {
  const data = await (await ctx.config()).read();
  if (!data.profiles[name]) throw unknownProfile(name, Object.keys(data.profiles));
  if (!ctx.globals.yes) {
    if (!ctx.canPrompt()) {
      throw new DeclinedError(
        `Removing profile "${name}" needs confirmation.`,
        "Run again with --yes to remove it without a prompt.",
      );
    }
    const ok = await ctx.prompter().confirm({
      message: `Remove profile "${name}" (${data.profiles[name].baseUrl}) and its stored key?`,
      default: false,
    });
    if (!ok) throw new DeclinedError(`Kept profile "${name}".`);
  }
  await removeProfile(ctx, name);
}
