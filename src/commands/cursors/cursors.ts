// cursors list | show | reset: the saved checkpoints of exports and event syncs for this profile.
import type { Context } from "../../context.js";
import { DeclinedError, UsageError } from "../../errors.js";
import { type Checkpoint, profileLabel } from "../../export/checkpoint.js";
import { type Column, printList, printRecord } from "../../io/render.js";

interface Row extends Checkpoint {
  key: string;
}

async function rowsFor(ctx: Context): Promise<Row[]> {
  // Local state only: the embedded sandbox is not started (nor refused) just to list its cursors.
  const profile = profileLabel(await ctx.localTarget());
  const data = await (await ctx.config()).read();
  return Object.entries(data.cursors)
    .map(([key, v]) => ({ ...(v as Checkpoint), key }))
    .filter((r) => r.profile === profile)
    .sort((a, b) => (a.name + a.feed + (a.type ?? "")).localeCompare(b.name + b.feed + (b.type ?? "")));
}

const COLUMNS: Column<Row>[] = [
  { header: "name", value: (r) => r.name },
  { header: "feed", value: (r) => (r.type ? `${r.feed} (${r.type})` : r.feed) },
  { header: "organization", value: (r) => r.organizationId },
  { header: "rows", value: (r) => r.rows },
  { header: "atStart", value: (r) => r.cursor === null },
  { header: "updatedAt", value: (r) => r.updatedAt },
  { header: "out", value: (r) => r.out },
];

export async function listRun(ctx: Context): Promise<void> {
  const rows = await rowsFor(ctx);
  printList(ctx.io, rows, COLUMNS, "No saved cursors for this profile yet.");
}

export async function showRun(name: string, ctx: Context): Promise<void> {
  const rows = (await rowsFor(ctx)).filter((r) => r.name === name);
  if (rows.length === 0)
    throw new UsageError(
      `No saved cursor named "${name}" for this profile.`,
      'Run "partner-cli cursors list".',
    );
  if (ctx.io.json) {
    ctx.io.outJson(rows);
    return;
  }
  for (const r of rows) {
    printRecord(ctx.io, r, [
      ["name", r.name],
      ["feed", r.type ? `${r.feed} (${r.type})` : r.feed],
      ["organization", r.organizationId],
      ["cursor", r.cursor ?? "(start of the feed)"],
      ["idsSkippedOnNextRead", r.skipIds?.length ?? 0],
      ["rows", r.rows],
      ["out", r.out],
      ["committedBytes", r.committedBytes],
      ["updatedAt", r.updatedAt],
    ]);
    if (ctx.io.stdoutIsTTY) ctx.io.out("\n");
  }
}

export async function resetRun(name: string, ctx: Context): Promise<void> {
  const rows = (await rowsFor(ctx)).filter((r) => r.name === name);
  if (rows.length === 0)
    throw new UsageError(
      `No saved cursor named "${name}" for this profile.`,
      'Run "partner-cli cursors list".',
    );
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
  await (await ctx.config()).update((d) => {
    for (const r of rows) delete d.cursors[r.key];
  });
  ctx.io.err(
    `Reset cursor "${name}" (${rows.length} checkpoint${rows.length === 1 ? "" : "s"}); the next run reads from the beginning.`,
  );
}
