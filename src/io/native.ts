// The one way a native module is loaded (libsql, @napi-rs/keyring, fs-native-extensions: external
// to the bundle, imported when first needed). One that does not load on this machine (not
// installed, no build for this platform, built for another Node) is a NativeModuleError (exit 4)
// that names the package, the platform and what still works without it, instead of a raw
// module-not-found or dlopen error (which would read as a bug).
import { NativeModuleError } from "../errors.js";

export interface NativeUse {
  /** What needs the package, e.g. "copying into SQLite (sync --to sqlite:FILE)". */
  neededFor: string;
  /** What still works without it, e.g. "sync --to postgres://..., exports to files". */
  without: string;
}

/** The platform as npm's per-platform packages name it: `linux-x64`, `win32-arm64`. */
export function platformArch(): string {
  return `${process.platform}-${process.arch}`;
}

const NOT_LOADED_CODES = new Set(["ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND", "ERR_DLOPEN_FAILED"]);
/** What loaders say when they catch the failure themselves (napi-rs, @neon-rs/load, node-gyp-build). */
const NOT_LOADED_TEXT = /Cannot find (module|package|native binding)|No native build was found/i;

/** Whether `err`, thrown while loading a package, means "it does not load here" (not a bug in it). */
function isNotLoaded(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  if (typeof e?.code === "string" && NOT_LOADED_CODES.has(e.code)) return true;
  return typeof e?.message === "string" && NOT_LOADED_TEXT.test(e.message);
}

/** The error's code, or the first in its causes (napi-rs keeps the dlopen errors there). */
function codeOf(err: unknown, depth = 0): string | undefined {
  if (depth > 5 || !err) return undefined;
  // napi-rs's loader gives the errors of every place it tried, as an array.
  if (Array.isArray(err)) return err.map((e) => codeOf(e, depth + 1)).find((c) => c !== undefined);
  const e = err as { code?: unknown; cause?: unknown };
  if (typeof e.code === "string" && e.code) return e.code;
  return codeOf(e.cause, depth + 1);
}

/** The NativeModuleError for `pkg`, which failed to load with `err`. */
function nativeModuleError(pkg: string, err: unknown, use: NativeUse): NativeModuleError {
  const code = codeOf(err);
  const first = (err instanceof Error ? err.message : String(err)).split("\n")[0]!.trim().replace(/\.+$/, "");
  return new NativeModuleError(
    `The native module ${pkg} does not load on this machine (${platformArch()}, Node ${process.versions.node}): ${code ? `${code}, ` : ""}${first}. It is needed for ${use.neededFor}; nothing was done with it.`,
    `Without it, these still work: ${use.without}. To get it, reinstall partner-cli on this machine with the Node version that runs it (npm install -g partner-cli; npm ci in a checkout), without --omit=optional or other flags that drop optional packages; if ${pkg} has no build for ${platformArch()}, use what still works.`,
    pkg,
  );
}

/**
 * Loads a native package through `load` (a literal `import("pkg")`, so that types and the bundler
 * see it); a failure to load it becomes a NativeModuleError, anything else is thrown as it is.
 */
export async function loadNative<T>(pkg: string, load: () => Promise<T>, use: NativeUse): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isNotLoaded(err)) throw nativeModuleError(pkg, err, use);
    throw err;
  }
}
