// roster export: every creator (filtered) as CSV in the import format, so export → import round-trips;
// or, with --format xlsx, as a workbook for people (identifiers as text, active as TRUE/FALSE).
import { plural } from "../../io/words.js";
import { listCreators } from "../../api/creators.js";
import { allPages } from "../../api/paging.js";
import type { Context } from "../../context.js";
import { ROSTER_HEADER } from "../../csv/roster.js";
import { CancelledError } from "../../errors.js";
import { startProgress } from "../../io/progress.js";
import { type Column, chooseRowsOutput, openRowsOutput } from "../../io/table-file.js";
import { LIMITS } from "../../spec/limits.js";
import { parseUpdatedSince } from "./shared.js";

export interface ExportOptions {
  out?: string | undefined;
  /** --active true|false, parsed by the declaration (src/cli/define.ts parseBoolArg). */
  active?: boolean | undefined;
  updatedSince?: string | undefined;
  format?: string | undefined;
  bom?: boolean | undefined;
}

/** The import format's columns: every one is text but `active`. */
const ROSTER_COLUMNS: readonly Column[] = ROSTER_HEADER.map((name) => ({
  name,
  kind: name === "active" ? "boolean" : "text",
  ...(name === "email" ? { width: 28 } : {}),
}));

export async function rosterExportRun(opts: ExportOptions, ctx: Context): Promise<void> {
  const active = opts.active;
  const updatedSince = parseUpdatedSince(opts.updatedSince);
  const toFile = opts.out !== undefined && opts.out !== "-";
  chooseRowsOutput(opts, ctx.io);
  const api = await ctx.api();
  const sink = await openRowsOutput(opts, ROSTER_COLUMNS, ctx.io, { sheetName: "Roster" });
  let count = 0;
  const interrupted = () =>
    new CancelledError(
      `Interrupted after ${plural(count, "creator")}; ${toFile ? `${opts.out} was not written (nothing was changed)` : "the output above is incomplete"}.`,
    );
  let progress: Awaited<ReturnType<typeof startProgress>> | undefined;
  try {
    for await (const page of allPages((p) =>
      listCreators(api, { active, updatedSince, page: p, pageSize: LIMITS.pageSizeMax }),
    )) {
      if (ctx.signal.aborted) throw interrupted();
      progress ??= await startProgress(ctx.io, "Exporting", page.totalCount);
      await sink.write(page.items.map((c) => [c.externalId, c.name, c.email, c.handle, c.active]));
      count += page.items.length;
      progress.update(count, page.totalCount);
    }
    progress?.stop();
    await sink.commit();
  } catch (err) {
    progress?.stop();
    await sink.abort();
    if (err instanceof CancelledError) throw interrupted();
    throw err;
  }
  const summary = { rows: count, out: toFile ? opts.out : null };
  if (ctx.io.json && toFile) ctx.io.outJson({ summary });
  ctx.io.err(`Exported ${plural(count, "creator")}${toFile ? ` to ${opts.out}` : ""}.`);
}
