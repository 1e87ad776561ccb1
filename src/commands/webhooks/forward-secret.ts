// The session secret of `webhooks forward`: made once per service, organization and target URL, kept
// in `<config dir>/forward-secrets/` (a 0600 file in a 0700 directory, one secret per line: the
// format `webhooks listen --secret-file` reads), so the developer's app is configured once.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { ensurePrivateDir } from "../../config/paths.js";
import { withPath } from "../../io/machine-failure.js";
import { replaceFile } from "../../io/private-file.js";
import { newSecret } from "../../webhooks/signature.js";
import { readSecrets } from "./shared.js";

export interface SessionSecret {
  secrets: string[];
  /** The file the secrets come from. */
  path: string;
  /** True when the secret was made by this run. */
  created: boolean;
}

/** The stored secret of (service, organization, url), made and saved on first use. */
export async function sessionSecret(configDir: string, key: readonly string[]): Promise<SessionSecret> {
  const dir = ensurePrivateDir(join(configDir, "forward-secrets"));
  const name = createHash("sha256").update(key.join("|")).digest("hex").slice(0, 16);
  const path = join(dir, `${name}.secret`);
  try {
    return { secrets: await readSecrets(path), path, created: false };
  } catch (err) {
    if (!/ENOENT/.test((err as Error).message)) throw err;
  }
  const secret = newSecret();
  try {
    await replaceFile(path, `${secret}\n`);
  } catch (err) {
    throw withPath(err, path);
  }
  return { secrets: [secret], path, created: true };
}
