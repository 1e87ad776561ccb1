// roster get EXTERNAL_ID
import { getCreator } from "../../api/creators.js";
import type { Context } from "../../context.js";
import { ApiError, UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import type { Creator } from "../../spec/creators.js";

export function printCreator(ctx: Context, c: Creator): void {
  printRecord(ctx.io, c, [
    ["externalId", c.externalId],
    ["name", c.name],
    ["email", c.email],
    ["handle", c.handle],
    ["active", c.active],
    ["createdAt", c.createdAt],
    ["updatedAt", c.updatedAt],
  ]);
}

export interface RosterGetOptions {
  externalId: string;
}

export async function rosterGetRun({ externalId }: RosterGetOptions, ctx: Context): Promise<void> {
  const id = externalId.trim();
  if (id === "") throw new UsageError("EXTERNAL_ID must not be blank.");
  try {
    printCreator(ctx, await getCreator(await ctx.api(), id));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404)
      throw err.withHint(
        `No creator "${id}" on the roster (IDs are case-sensitive). See "partner-cli roster list".`,
      );
    throw err;
  }
}
