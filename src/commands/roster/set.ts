// roster set EXTERNAL_ID: PUT /creators/{externalId}, an upsert of the fields given.
import { type CreatorPut, getCreator, putCreator } from "../../api/creators.js";
import type { Context } from "../../context.js";
import { ApiError, UsageError } from "../../errors.js";
import type { Creator } from "../../spec/creators.js";
import { checkCreatorWrite, ExternalIdRule, issueReasons } from "../../spec/creators.js";
import { printCreator } from "./get.js";

export interface SetOptions {
  /** Your creator ID (the positional EXTERNAL_ID). */
  externalId: string;
  name?: string | undefined;
  email?: string | undefined;
  handle?: string | undefined;
  active?: boolean | undefined;
  inactive?: boolean | undefined;
}

export async function rosterSetRun(opts: SetOptions, ctx: Context): Promise<void> {
  const idCheck = ExternalIdRule.safeParse(opts.externalId);
  if (!idCheck.success)
    throw new UsageError(
      `EXTERNAL_ID ${issueReasons(idCheck.error)
        .map((r) => r.replace(/^: ?/, ""))
        .join("; ")}.`,
    );
  const id = idCheck.data;
  if (opts.active && opts.inactive) throw new UsageError("Give --active or --inactive, not both.");
  const raw: Record<string, unknown> = {};
  if (opts.name !== undefined) raw.name = opts.name;
  if (opts.email !== undefined) raw.email = opts.email;
  if (opts.handle !== undefined) raw.handle = opts.handle;
  if (opts.active) raw.active = true;
  if (opts.inactive) raw.active = false;
  if (Object.keys(raw).length === 0) {
    throw new UsageError(
      "Nothing to set.",
      'Give at least one of --name, --email, --handle, --active or --inactive (--email "" clears the email).',
    );
  }
  const checked = checkCreatorWrite(raw, { withExternalId: false });
  if (!checked.ok) {
    throw new UsageError(`The creator is not valid: ${checked.reasons.map((r) => `--${r}`).join("; ")}.`);
  }
  const v = checked.value;
  const body: CreatorPut = {};
  if (v.name !== undefined && v.name !== null) body.name = v.name;
  if (v.email !== undefined) body.email = v.email;
  if (v.handle !== undefined) body.handle = v.handle;
  if (v.active !== undefined) body.active = v.active;
  const api = await ctx.api();
  // Read first, so a set that changes nothing says so; the PUT is sent either way (safe to repeat).
  let before: string | undefined;
  try {
    before = fieldsOf(await getCreator(api, id));
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
  const { creator, created } = await putCreator(api, id, body);
  if (!ctx.io.json)
    ctx.io.err(
      created
        ? `Created creator ${creator.externalId}.`
        : before !== undefined && before === fieldsOf(creator)
          ? `Creator ${creator.externalId} already had these values; nothing changed.`
          : `Updated creator ${creator.externalId}.`,
    );
  printCreator(ctx, creator);
}

/** The fields `roster set` can change, as one comparable text. */
function fieldsOf(c: Creator): string {
  return JSON.stringify([c.name, c.email ?? null, c.handle ?? null, c.active]);
}
