// cursors reset TARGET: forget the cursor of a file (or a named cursor). It takes the destination's
// run lock, so it cannot be undone by an export or sync that is running (exit 9).
import type { Context } from "../../context.js";
import { DeclinedError, LockedError } from "../../errors.js";
import { lockDestination } from "../../export/checkpoint.js";
import { destCell, named } from "./rows.js";

export interface CursorsResetOptions {
  target: string;
}

export async function cursorsResetRun({ target: name }: CursorsResetOptions, ctx: Context): Promise<void> {
  const { rows, dest, store } = await named(ctx, name);
  const label = destCell(rows[0]!);
  const after =
    dest.kind === "file"
      ? `${label} is then no partner-cli cursor's file: no export appends to it again (a new file starts from the beginning)`
      : `the next run of --cursor ${dest.name} reads from the beginning`;
  if (!ctx.globals.yes) {
    if (!ctx.canPrompt()) {
      throw new DeclinedError(
        `Resetting the cursor of ${label}: ${after}; refused without --yes.`,
        "Add --yes to confirm.",
      );
    }
    const okay = await ctx
      .prompter()
      .confirm({ message: `Reset the cursor of ${label}? ${after}.`, default: false });
    if (!okay) throw new DeclinedError("Not reset.");
  }
  // The same run lock as the export and the sync take: a running one keeps its cursor (exit 9).
  let lock: Awaited<ReturnType<typeof lockDestination>>;
  try {
    lock = await lockDestination(ctx.configDir(), dest, `The cursor of ${label}`);
  } catch (err) {
    if (!(err instanceof LockedError)) throw err;
    throw new LockedError(
      `Not reset: ${err.message}`,
      `The cursor of ${label} is unchanged. Reset it once that run has finished.`,
    );
  }
  try {
    lock.assertHeld();
    await store.save(
      dest,
      [],
      rows.map((r) => r.key),
    );
  } finally {
    await lock.release().catch(() => {});
  }
  ctx.io.err(
    `Reset the cursor of ${label} (${rows.length} checkpoint${rows.length === 1 ? "" : "s"}); ${after}.`,
  );
}
