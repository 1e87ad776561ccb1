// webhooks rotate-secret ID: replace the signing secret (the previous one keeps signing for 24 hours).
import { existsSync } from "node:fs";
import { rotateSecret } from "../../api/webhooks.js";
import type { Context } from "../../context.js";
import { deliverSecret, type SecretOpts } from "./secret-delivery.js";
import { prepareSecretFile, readSecrets } from "./shared.js";

export interface WebhooksRotateSecretOptions extends SecretOpts {
  id: string;
}

/**
 * rotate-secret: with --secret-file F --force on an existing F, F's current secret (its first line)
 * becomes the second line under the new one, since the previous secret keeps signing for 24 hours
 * and receivers (webhooks listen, webhooks verify) accept either line. The file is checked and
 * reserved before the request; without --force an existing F is refused.
 */
export async function webhooksRotateSecretRun(o: WebhooksRotateSecretOptions, ctx: Context): Promise<void> {
  const id = o.id;
  const file = o.secretFile ? await prepareSecretFile(o.secretFile, Boolean(o.force)) : undefined;
  try {
    let previous: string | undefined;
    if (file && existsSync(file.path)) {
      const lines = await readSecrets(file.path).catch(() => [] as string[]);
      previous = lines[0]?.startsWith("whsec_") ? lines[0] : undefined;
      if (!previous)
        ctx.io.err(
          `Warning: ${file.path} holds no webhook secret (whsec_...); it will hold the new secret only.`,
        );
    }
    const r = await rotateSecret(await ctx.api(), id);
    await deliverSecret(ctx, r, file, "Rotated the secret of", previous);
    const until = r.webhook.previousSecretExpiresAt ?? "the 24-hour overlap ends";
    ctx.io.err(
      previous
        ? `The previous secret keeps signing until ${until}: receivers must keep both lines until then (webhooks listen and verify accept either); afterwards remove the second line.`
        : `The previous secret keeps signing until ${until}: give receivers both (one per line in the secret file, new first) until then.`,
    );
  } finally {
    await file?.discard();
  }
}
