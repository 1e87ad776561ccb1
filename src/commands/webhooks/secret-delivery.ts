// The signing secret of webhooks create and rotate-secret, shown exactly once.
import type { WebhookWithSecret } from "../../api/webhooks.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import { type SecretFile, webhookFields } from "./shared.js";

export interface SecretOpts {
  secretFile?: string | undefined;
  force?: boolean | undefined;
}

/**
 * Shows the secret exactly once: into the reserved --secret-file (with `previous` as the second
 * line during a rotation), else on stdout (JSON with --json), with a warning.
 */
export async function deliverSecret(
  ctx: Context,
  r: WebhookWithSecret,
  file: SecretFile | undefined,
  verb: string,
  previous?: string | undefined,
): Promise<void> {
  if (file) {
    try {
      await file.write(previous ? [r.secret, previous] : [r.secret]);
    } catch (err) {
      // The file was checked and reserved before the request; if it still fails, do not lose the
      // only copy. One message (main prints it): what failed, what was done, where the secret is.
      ctx.io.out(`${r.secret}\n`);
      throw new UsageError(
        `${(err as Error).message} ${verb} webhook ${r.webhook.id} all the same; its secret is printed on stdout instead.`,
        "Store it now: it cannot be read again.",
      );
    }
    ctx.io.err(
      previous
        ? `${verb} webhook ${r.webhook.id}; ${file.path} (mode 0600) holds the new signing secret and, on its second line, the previous one.`
        : `${verb} webhook ${r.webhook.id}; its signing secret is in ${file.path} (mode 0600).`,
    );
    if (ctx.io.json) ctx.io.outJson({ webhook: r.webhook, secretFile: file.path });
    else printRecord(ctx.io, r.webhook, webhookFields(r.webhook));
    return;
  }
  ctx.io.err(
    `${verb} webhook ${r.webhook.id}. Its signing secret is printed below on stdout ONCE: it cannot be read again. Store it now (use --secret-file FILE next time).`,
  );
  if (ctx.io.json) ctx.io.outJson({ webhook: r.webhook, secret: r.secret });
  else ctx.io.out(`${r.secret}\n`);
}
