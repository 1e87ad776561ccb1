// API keys in the operating system's keychain: the macOS Keychain, the Windows Credential Manager,
// the Secret Service on Linux desktops (GNOME Keyring, KWallet). @napi-rs/keyring ships its binaries
// inside its npm packages (no install script) and is loaded only when a key is stored, read or
// forgotten there, never on start-up. Where no keychain answers (headless Linux, containers, cron
// hosts), `login` keeps the key in the 0600 config file instead, as gh does. On Linux the kernel
// keyring is never used (see `entry`).
//
// An entry is service "partner-cli", account "<profile> (<config dir>)": two config directories
// (PARTNER_CLI_CONFIG_DIR) holding a profile of the same name never share a key.
import { ConfigError, NativeModuleError } from "../errors.js";
import { machineFailure } from "../io/machine-failure.js";
import { loadNative, type NativeUse, platformArch } from "../io/native.js";

const KEYCHAIN_SERVICE = "partner-cli";

export function keychainAccount(configDir: string, profile: string): string {
  return `${profile} (${configDir})`;
}

interface KeyringEntry {
  setPassword(password: string): void;
  getPassword(): string | null | undefined;
  deletePassword(): boolean;
}

/** The keychain binding (src/io/native.ts says this when it does not load). */
const KEYRING: NativeUse = {
  neededFor: "keeping API keys in the OS keychain",
  without:
    'keys in the private config file (0600; "partner-cli login" keeps the key there when no keychain answers, or with --insecure-storage) and PARTNER_API_KEY',
};

async function entry(account: string): Promise<KeyringEntry> {
  const { Entry } = await loadNative("@napi-rs/keyring", () => import("@napi-rs/keyring"), KEYRING);
  // On Linux only the Secret Service counts: the library would otherwise fall back to the kernel
  // keyring, which "works" on a headless host but is gone at reboot and out of cron's reach.
  return new Entry(KEYCHAIN_SERVICE, account, { linux: { store: "secret-service" } }) as KeyringEntry;
}

/**
 * Why the keychain did not answer, in words (never the key): what was tried and what stood in the
 * way. On Linux the library's D-Bus failures ("Platform failure: DBus error: Using X11 for
 * dbus-daemon autolaunch was disabled...") come down to the session bus the Secret Service lives on.
 */
function reason(err: unknown): string {
  const text = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ").trim();
  if (/d-?bus/i.test(text)) {
    const bus = process.env.DBUS_SESSION_BUS_ADDRESS;
    return bus
      ? `tried the Secret Service (GNOME Keyring, KWallet) on the D-Bus session bus ${bus}, and none answered there`
      : "tried the Secret Service (GNOME Keyring, KWallet), which needs a D-Bus session bus, and this session has none (DBUS_SESSION_BUS_ADDRESS is not set)";
  }
  return text || "no answer";
}

/**
 * Stores `key` in the keychain and reads it back. Answers where it went: `{ stored: true }`, or
 * `{ stored: false, reason }` when no keychain answered (nothing is left behind in that case).
 */
export async function keychainStore(
  account: string,
  key: string,
): Promise<{ stored: true } | { stored: false; reason: string }> {
  let e: KeyringEntry;
  try {
    e = await entry(account);
  } catch (err) {
    // No binding for this platform: the key goes to the file, as where no keychain answers.
    if (err instanceof NativeModuleError)
      return {
        stored: false,
        reason: `the keychain binding ${err.pkg} does not load here (${platformArch()})`,
      };
    return { stored: false, reason: reason(err) };
  }
  try {
    e.setPassword(key);
    if (e.getPassword() !== key) {
      try {
        e.deletePassword();
      } catch {}
      return { stored: false, reason: "the keychain did not give the key back" };
    }
    return { stored: true };
  } catch (err) {
    return { stored: false, reason: reason(err) };
  }
}

/** The key of a profile kept in the keychain; exit 4 when the keychain does not give it. */
export async function keychainRead(account: string, profile: string): Promise<string> {
  const fix =
    `Run this where the keychain is unlocked (a desktop session), log in again with "partner-cli login --profile ${profile}"` +
    ` (add --insecure-storage to keep the key in the config file, e.g. for cron), or set PARTNER_API_KEY.`;
  let key: string | null | undefined;
  try {
    key = (await entry(account)).getPassword();
  } catch (err) {
    // The binding does not load here: exit 4, naming it, the platform and the ways on (the hint).
    if (err instanceof NativeModuleError)
      throw new NativeModuleError(
        `The key of profile "${profile}" is in the OS keychain, but t${err.message.slice(1)}`,
        `${err.hint} For this profile: set PARTNER_API_KEY, or log in again with "partner-cli login --profile ${profile} --insecure-storage" to keep the key in the config file.`,
        err.pkg,
      );
    const broken = machineFailure(err, { kept: "Nothing was sent." });
    if (broken) throw broken;
    throw new ConfigError(
      `The key of profile "${profile}" is in the OS keychain, which did not answer (${reason(err)}). Nothing was sent.`,
      fix,
    );
  }
  if (!key) {
    throw new ConfigError(
      `The key of profile "${profile}" should be in the OS keychain, but the keychain has no entry for it (service "${KEYCHAIN_SERVICE}", account "${account}"). Nothing was sent.`,
      fix,
    );
  }
  return key;
}

/** Forgets a profile's key; false when there was none or no keychain answered. */
export async function keychainDelete(account: string): Promise<boolean> {
  try {
    return (await entry(account)).deletePassword();
  } catch {
    return false;
  }
}
