import { keyStorageOf } from "../../config/profiles.js";
import { type Context, sandboxChoice } from "../../context.js";
import { printRecord } from "../../io/render.js";
import { COMMIT, VERSION } from "../../version.js";
import type { NoOptions } from "../shared/run.js";

export type KeyStorage = "keychain" | "file" | "env" | "sandbox" | "none";

export interface VersionInfo {
  version: string;
  commit: string | null;
  node: string;
  platform: string;
  arch: string;
  configDir: string;
  stateDir: string;
  sandboxDataDir: string;
  profile: string | null;
  keyStorage: KeyStorage;
}

/** Where the current profile's key is kept, read from the config file only: no keychain, no request. */
async function keyStorage(ctx: Context): Promise<Pick<VersionInfo, "profile" | "keyStorage">> {
  const data = await ctx.storedData();
  const name = ctx.globals.profile || ctx.env.PARTNER_PROFILE || data.currentProfile || null;
  if (sandboxChoice(ctx.globals, ctx.env)) return { profile: null, keyStorage: "sandbox" };
  if (ctx.env.PARTNER_API_KEY) return { profile: name, keyStorage: "env" };
  const p = name ? data.profiles[name] : undefined;
  return { profile: name, keyStorage: p ? keyStorageOf(p) : "none" };
}

async function versionInfo(ctx: Context): Promise<VersionInfo> {
  return {
    version: VERSION,
    commit: COMMIT ?? null,
    node: process.versions.node,
    platform: process.platform,
    arch: process.arch,
    configDir: ctx.configDir(),
    stateDir: ctx.stateDir(),
    sandboxDataDir: ctx.sandboxDataDir(),
    ...(await keyStorage(ctx)),
  };
}

/** version (and --version --verbose / --json): what this partner-cli is, and where its files are. */
export async function versionRun(_opts: NoOptions, ctx: Context): Promise<void> {
  const info = await versionInfo(ctx);
  printRecord(
    ctx.io,
    info,
    Object.entries(info).map(([k, v]) => [k, v ?? (k === "commit" ? "unknown" : "-")] as [string, unknown]),
  );
}
