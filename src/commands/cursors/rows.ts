// What cursors list | show | reset read: the checkpoints of this config dir (every organization and
// service), a row per checkpoint, found by the file they feed or by their name. Local state only.
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import {
  atStart,
  type Checkpoint,
  type CheckpointStore,
  type Entry,
  openCheckpoints,
} from "../../export/checkpoint.js";
import type { Destination } from "../../export/cursor-id.js";
import { resolveOutPath } from "../../export/durable-output.js";
import type { Column } from "../../io/render.js";

export interface Row extends Omit<Checkpoint, "file"> {
  key: string;
  /** The output file's committed state, without the intent's digests. */
  file?: Record<string, unknown> | null | undefined;
}

function rowOf({ key, cp }: Entry): Row {
  const { file, ...rest } = cp;
  const row: Row = { ...rest, key };
  if (file !== undefined) {
    const { intent, ...committed } = file ?? {};
    row.file = file ? { ...committed, writeInProgress: intent ? intent.length : null } : null;
  }
  return row;
}

const order = (r: Row) => `${r.out ?? `~${r.name}`}|${r.organizationId}|${r.feed}|${r.type ?? ""}`;

const sorted = (entries: Entry[]): Row[] =>
  entries.map(rowOf).sort((a, b) => order(a).localeCompare(order(b)));

const storeOf = async (ctx: Context) => openCheckpoints(ctx.configDir(), await ctx.config());

/** Every checkpoint of this config dir, as rows. */
export async function rowsFor(ctx: Context): Promise<Row[]> {
  return sorted((await storeOf(ctx)).all());
}

/** Where a cursor's rows go: its file, or its name for stdout and workbooks. */
export const destCell = (r: Row) => r.out ?? `--cursor ${r.name}`;
const orgCell = (r: Row) => r.organizationName ?? r.organizationId;
export const stateCell = (r: Row) =>
  r.closed
    ? `continued in ${r.closed.continuedIn}`
    : r.convertedFrom
      ? `open (from ${r.convertedFrom})`
      : "open";

export const COLUMNS: Column<Row>[] = [
  { header: "destination", value: destCell },
  { header: "feed", value: (r) => (r.type ? `${r.feed} (${r.type})` : r.feed) },
  { header: "organization", value: orgCell },
  { header: "service", value: (r) => r.service ?? "" },
  { header: "via", value: (r) => r.via ?? "" },
  { header: "rows", value: (r) => r.rows },
  // At the start only when nothing was read: the first page's cursor is null too, its ids handled.
  { header: "atStart", value: (r) => atStart(r) },
  { header: "updatedAt", value: (r) => r.updatedAt },
  { header: "state", value: stateCell },
];

/**
 * The checkpoints of one destination: TARGET is the file a cursor feeds (any spelling of its path)
 * or the name of a cursor kept for stdout or workbooks (`--cursor NAME`).
 */
export async function named(
  ctx: Context,
  target: string,
): Promise<{ rows: Row[]; dest: Destination; store: CheckpointStore }> {
  const store = await storeOf(ctx);
  const byName: Destination = { kind: "named", name: target };
  const byFile: Destination = { kind: "file", path: await resolveOutPath(target) };
  const looksLikePath = /[/\\]/.test(target);
  for (const dest of looksLikePath ? [byFile, byName] : [byName, byFile]) {
    const rows = sorted(store.of(dest));
    if (rows.length > 0) return { rows, dest, store };
  }
  throw new UsageError(
    `No saved cursor for "${target}" in ${ctx.configDir()}.`,
    'Name the file a cursor feeds, or a --cursor name; "partner-cli cursors list" shows them.',
  );
}
