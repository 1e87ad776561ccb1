// cursors list: the saved cursors of the service this run talks to, with their organization.
import type { Context } from "../../context.js";
import { printList } from "../../io/render.js";
import type { NoOptions } from "../shared/run.js";
import { COLUMNS, rowsFor } from "./rows.js";

export async function cursorsListRun(_opts: NoOptions, ctx: Context): Promise<void> {
  const { rows, service } = await rowsFor(ctx);
  printList(ctx.io, rows, COLUMNS, `No saved cursors for ${service} yet.`);
}
