// cursors show TARGET: the checkpoints of one file or named cursor (one record per feed and organization).
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";
import { destCell, named, stateCell } from "./rows.js";

export interface CursorsShowOptions {
  target: string;
}

export async function cursorsShowRun({ target: name }: CursorsShowOptions, ctx: Context): Promise<void> {
  const { rows } = await named(ctx, name);
  if (ctx.io.json) {
    ctx.io.outJson(rows);
    return;
  }
  for (const r of rows) {
    printRecord(ctx.io, r, [
      ["destination", destCell(r)],
      ["feed", r.type ? `${r.feed} (${r.type})` : r.feed],
      ["organization", r.organizationName ? `${r.organizationName} (${r.organizationId})` : r.organizationId],
      ["service", r.service ?? ""],
      ["via", r.via ?? ""],
      ["cursor", r.cursor ?? "(start of the feed)"],
      ["idsSkippedOnNextRead", r.skipIds?.length ?? 0],
      ["rows", r.rows],
      ["since", r.since ?? ""],
      ["committedBytes", r.committedBytes],
      ["format", (r.file?.format as string | undefined) ?? ""],
      ["state", stateCell(r)],
      ["updatedAt", r.updatedAt],
    ]);
    if (ctx.io.stdoutIsTTY) ctx.io.out("\n");
  }
}
