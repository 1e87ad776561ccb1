// cursors reset NAME: forget a saved cursor. It takes the cursor's run lock, so it cannot be undone
// by an export or sync that is running (exit 9).
import type { Context } from "../../context.js";
import { DeclinedError, LockedError } from "../../errors.js";
import { cursorLockPath } from "../../export/checkpoint.js";
import { type RunLock, takeRunLock } from "../../export/run-lock.js";
import { named } from "./rows.js";

export interface CursorsResetOptions {
  name: string;
}

export async function cursorsResetRun({ name }: CursorsResetOptions, ctx: Context): Promise<void> {
  const { rows, service } = await named(ctx, name);
  if (!ctx.globals.yes) {
    if (!ctx.canPrompt()) {
      throw new DeclinedError(
        `Resetting cursor "${name}" makes the next run start from the beginning; refused without --yes.`,
        "Add --yes to confirm.",
      );
    }
    const okay = await ctx.prompter().confirm({
      message: `Reset cursor "${name}"? The next export starts from the beginning.`,
      default: false,
    });
    if (!okay) throw new DeclinedError("Not reset.");
  }
  // The same run locks as the export and the sync take: a running one keeps its cursor (exit 9).
  const families = new Set(
    rows.map((r): "events" | "redemptions" => (r.feed === "events" ? "events" : "redemptions")),
  );
  const locks: RunLock[] = [];
  try {
    for (const family of families) {
      try {
        locks.push(
          await takeRunLock(cursorLockPath(ctx.configDir(), service, family, name), `Cursor "${name}"`),
        );
      } catch (err) {
        if (!(err instanceof LockedError)) throw err;
        throw new LockedError(
          `Not reset: ${err.message}`,
          `Cursor "${name}" is unchanged. Reset it once that run has finished.`,
        );
      }
    }
    for (const l of locks) l.assertHeld();
    await (await ctx.config()).update((d) => {
      for (const r of rows) delete d.cursors[r.key];
    });
  } finally {
    for (const l of locks.reverse()) await l.release().catch(() => {});
  }
  ctx.io.err(
    `Reset cursor "${name}" (${rows.length} checkpoint${rows.length === 1 ? "" : "s"}); its next run reads from the beginning${rows.some((r) => r.feed !== "events") ? ", into a new or empty file" : ""}.`,
  );
}
