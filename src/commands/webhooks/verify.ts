// webhooks verify: checks a Service-Signature header against the raw body bytes (spec: Signature
// verification rules). Exit 0 and "valid", or exit 3 with the reason; unreadable files exit 2.
import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { Context } from "../../context.js";
import { SignatureMismatch, UsageError } from "../../errors.js";
import { DEFAULT_TOLERANCE_SECONDS, verifySignature } from "../../webhooks/signature.js";
import { readSecrets } from "./shared.js";

export interface VerifyOptions {
  secretFile?: string | undefined;
  header?: string | undefined;
  body?: string | undefined;
  tolerance?: number | undefined;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === "string" ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks);
}

export async function webhooksVerifyRun(o: VerifyOptions, ctx: Context): Promise<void> {
  const missing = [!o.secretFile && "--secret-file FILE", o.header === undefined && "--header VALUE"].filter(
    Boolean,
  );
  if (missing.length) throw new UsageError(`webhooks verify needs ${missing.join(" and ")}.`);
  const secrets = await readSecrets(o.secretFile!);
  let rawBody: Buffer;
  if (o.body && o.body !== "-") {
    try {
      rawBody = await readFile(o.body);
    } catch (err) {
      throw new UsageError(
        `Cannot read the body file ${o.body}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
      );
    }
  } else {
    if (ctx.io.stdinIsTTY)
      throw new UsageError("webhooks verify reads the raw body from stdin; pipe it in or pass --body FILE.");
    rawBody = await readAll(ctx.io.stdin);
  }
  const tolerance = o.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  const r = verifySignature({
    header: o.header!,
    rawBody,
    secrets,
    nowSeconds: Math.floor(ctx.clock.now().getTime() / 1000),
    toleranceSeconds: tolerance,
  });
  if (!r.ok) {
    if (ctx.io.json) ctx.io.outJson({ valid: false, reason: r.reason });
    throw new SignatureMismatch(`Invalid signature: ${r.reason}.`);
  }
  if (ctx.io.json) ctx.io.outJson({ valid: true, t: r.t });
  else ctx.io.out("valid\n");
}
