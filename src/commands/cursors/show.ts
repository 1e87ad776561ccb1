// cursors show NAME: details of a saved cursor (one record per feed and organization).
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";
import { named, serviceCell } from "./rows.js";

export interface CursorsShowOptions {
  name: string;
}

export async function cursorsShowRun({ name }: CursorsShowOptions, ctx: Context): Promise<void> {
  const { rows } = await named(ctx, name);
  if (ctx.io.json) {
    ctx.io.outJson(rows);
    return;
  }
  for (const r of rows) {
    printRecord(ctx.io, r, [
      ["name", r.name],
      ["feed", r.type ? `${r.feed} (${r.type})` : r.feed],
      ["service", serviceCell(r)],
      ["organization", r.organizationName ? `${r.organizationName} (${r.organizationId})` : r.organizationId],
      ["cursor", r.cursor ?? "(start of the feed)"],
      ["idsSkippedOnNextRead", r.skipIds?.length ?? 0],
      ["rows", r.rows],
      ["out", r.out ?? (r.feed === "corrections" ? "" : "stdout")],
      ["committedBytes", r.committedBytes],
      ["format", (r.file?.format as string | undefined) ?? ""],
      ["updatedAt", r.updatedAt],
    ]);
    if (ctx.io.stdoutIsTTY) ctx.io.out("\n");
  }
}
