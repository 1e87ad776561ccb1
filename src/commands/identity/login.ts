import { getMe } from "../../api/me.js";
import {
  checkApiKey,
  checkProfileName,
  DEFAULT_PROFILE,
  maskKey,
  profileView,
} from "../../config/profiles.js";
import { keychainAccount, keychainDelete, keychainStore } from "../../config/keychain.js";
import type { Profile } from "../../config/store.js";
import type { Context } from "../../context.js";
import { ApiError, UsageError } from "../../errors.js";

export interface LoginOptions {
  apiKeyStdin?: boolean | undefined;
  /** Keep the key in the config file (0600) even where an OS keychain answers. */
  insecureStorage?: boolean | undefined;
}

/** Reads all of stdin as text. */
async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  stdin.setEncoding?.("utf8");
  for await (const chunk of stdin) text += chunk;
  return text;
}

/** The key: from stdin with --api-key-stdin, else a hidden prompt on a terminal. */
async function readKey(opts: LoginOptions, ctx: Context): Promise<string> {
  let key: string;
  if (opts.apiKeyStdin) {
    if (ctx.io.stdinIsTTY) {
      // Typing the key here would echo it on the screen.
      throw new UsageError(
        "--api-key-stdin reads a piped key, but stdin is a terminal (the key would show as you type).",
        "Pipe the key in, or leave out --api-key-stdin to be asked with a hidden prompt.",
      );
    }
    key = await readStdin(ctx.io.stdin);
  } else if (ctx.canPrompt()) {
    key = await ctx.prompter().password({ message: "API key (input hidden):" });
  } else {
    throw new UsageError(
      "No terminal to read the API key from.",
      "Pipe the key in with --api-key-stdin, e.g. printf '%s\\n' \"$KEY\" | partner-cli login --api-key-stdin",
    );
  }
  key = key.replace(/^\uFEFF/, "").trim();
  if (!key) {
    throw new UsageError(
      "The API key is empty.",
      opts.apiKeyStdin ? "Pipe the key on stdin (one line)." : "Paste the key at the prompt.",
    );
  }
  return checkApiKey(key, opts.apiKeyStdin ? "stdin" : "The prompt");
}

/** The key checked with GET /me before anything is stored: with a client for this URL and key, not ctx.api(). */
async function checkKey(
  ctx: Context,
  baseUrl: string,
  apiKey: string,
  baseUrlSource: string,
): Promise<Awaited<ReturnType<typeof getMe>>> {
  const client = ctx.clientFor({ baseUrl, apiKey, baseUrlSource });
  try {
    return await getMe(client);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      throw err.withHint(
        `The key was not accepted by ${baseUrl}, so nothing was stored. Check that you copied the whole key and that it belongs to this service.`,
      );
    }
    throw err;
  } finally {
    await client.close();
  }
}

/** Says where the key went; a key moved from the keychain into the file leaves no entry behind. */
async function reportKeyStorage(
  ctx: Context,
  kept: { stored: true } | { stored: false; reason: string | undefined },
  account: string,
  file: string,
  wasInKeychain: boolean,
): Promise<void> {
  if (kept.stored) {
    ctx.io.err(`The key is in the OS keychain (service "partner-cli", account "${account}").`);
    return;
  }
  if (wasInKeychain) await keychainDelete(account);
  ctx.io.err(
    kept.reason === undefined
      ? `The key is in ${file} (readable only by you), as --insecure-storage asks.`
      : `No OS keychain answered (${kept.reason}), so the key is in ${file} instead, readable only by you.`,
  );
}

export async function loginRun(opts: LoginOptions, ctx: Context): Promise<void> {
  const name = checkProfileName(ctx.globals.profile || ctx.env.PARTNER_PROFILE || DEFAULT_PROFILE);
  const store = await ctx.config();
  const before = await store.read();
  const existing = before.profiles[name];

  // The Context's precedence: --base-url > PARTNER_BASE_URL > the profile's own.
  const chosen = ctx.baseUrlFor(name, existing);
  if (!chosen) {
    const current = before.currentProfile;
    throw new UsageError(
      `No base URL for profile "${name}".`,
      current && current !== name && before.profiles[current]
        ? `Pass --base-url (the part before /api/partner/v1) or set PARTNER_BASE_URL. To replace the key of the current profile, run "partner-cli login --profile ${current}".`
        : "Pass --base-url (the part before /api/partner/v1) or set PARTNER_BASE_URL.",
    );
  }
  const baseUrl = chosen.baseUrl;

  const apiKey = await readKey(opts, ctx);

  const me = await checkKey(ctx, baseUrl, apiKey, chosen.source);

  // The key goes to the OS keychain when one answers (and --insecure-storage is not given), else
  // into the config file; either way only after the service accepted it.
  const account = keychainAccount(store.dir, name);
  const kept = opts.insecureStorage
    ? ({ stored: false, reason: undefined } as const)
    : await keychainStore(account, apiKey);
  const made = await store.update((d) => {
    const profile: Profile = {
      baseUrl,
      ...(kept.stored ? { keyStorage: "keychain" as const, keyMask: maskKey(apiKey) } : { apiKey }),
      keyName: me.key.name,
      canWrite: me.key.canWrite,
      organization: {
        id: me.organization.id,
        name: me.organization.name,
        reportingTimeZone: me.organization.reportingTimeZone,
      },
      savedAt: ctx.clock.now().toISOString(),
    };
    d.profiles[name] = profile;
    // The first profile (or the only one) becomes current; logging in to another keeps the current.
    const currentValid = d.currentProfile !== undefined && d.profiles[d.currentProfile] !== undefined;
    if (!currentValid || Object.keys(d.profiles).length === 1) d.currentProfile = name;
    return { profile, current: d.currentProfile === name, currentName: d.currentProfile };
  });

  if (ctx.io.json) {
    ctx.io.outJson(profileView(name, made.profile, made.current));
  }
  const access = me.key.canWrite ? "read and write" : "read-only";
  ctx.io.err(
    `Logged in to ${me.organization.name} (time zone ${me.organization.reportingTimeZone}) with key "${me.key.name}" (${access}, ${maskKey(apiKey)}).`,
  );
  ctx.io.err(
    `${existing ? "Updated" : "Stored"} profile "${name}" for ${baseUrl}${made.current ? " (current profile)" : ""}.`,
  );
  await reportKeyStorage(ctx, kept, account, store.file, existing?.keyStorage === "keychain");
  if (existing?.organization && existing.organization.id !== me.organization.id) {
    ctx.io.err(
      `Note: profile "${name}" was for ${existing.organization.name}; it is now for ${me.organization.name}.`,
    );
  }
  if (!made.current) {
    ctx.io.err(
      `The current profile is still "${made.currentName}". Use this one with --profile ${name}, or run "partner-cli profiles use ${name}".`,
    );
  }
  if (!me.key.canWrite) ctx.io.err("This key is read-only: commands that change anything will answer 403.");
  if (ctx.env.PARTNER_API_KEY) {
    ctx.io.err("Note: PARTNER_API_KEY is set in this environment; while it is, it wins over the stored key.");
  }
}
