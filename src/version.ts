// Kept in step with package.json by a test.
export const VERSION = "0.1.0";

// Set by scripts/build.mjs (esbuild `define`) when the build runs in a git checkout; absent otherwise
// (a build from the packed tarball's sources, or the sources run by vitest).
declare const __PARTNER_CLI_COMMIT__: string | undefined;

/** The commit the build was made from (`abc1234`, `abc1234-dirty` for a tree with changes), if known. */
export const COMMIT: string | undefined =
  typeof __PARTNER_CLI_COMMIT__ === "string" && __PARTNER_CLI_COMMIT__ ? __PARTNER_CLI_COMMIT__ : undefined;

/** The User-Agent of every request: `partner-cli/0.1.0 (node 22.11.0; linux x64)`. */
export function userAgent(): string {
  return `partner-cli/${VERSION} (node ${process.versions.node}; ${process.platform} ${process.arch})`;
}
