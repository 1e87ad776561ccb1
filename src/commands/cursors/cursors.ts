// cursors list | show | reset: the saved checkpoints of exports and event syncs of the service this
// run talks to (all its organizations; entries saved by older versions for this profile too).
// `reset` takes the cursor's run lock, so it cannot be undone by an export that is running (exit 9).
import { getMe } from "../../api/me.js";
import type { Context } from "../../context.js";
import { DeclinedError, LockedError, UsageError } from "../../errors.js";
import {
  allEntries,
  type Checkpoint,
  cursorLockPath,
  legacyLabel,
  ofTarget,
  serviceOf,
} from "../../export/checkpoint.js";
import { type RunLock, takeRunLock } from "../../export/run-lock.js";
import { type Column, printList, printRecord } from "../../io/render.js";

interface Row extends Omit<Checkpoint, "file"> {
  key: string;
  /** The output file's committed state, without the intent's digests. */
  file?: Record<string, unknown> | null | undefined;
}

async function rowsFor(ctx: Context): Promise<{ rows: Row[]; service: string }> {
  // Local state only: the embedded sandbox is not started (nor refused) just to list its cursors.
  const target = await ctx.localTarget();
  const service = serviceOf(target);
  const label = legacyLabel(target);
  const data = await (await ctx.config()).read();
  const rows = allEntries(data)
    .filter((e) => ofTarget(e, service, label))
    .map(({ key, cp }): Row => {
      const { file, ...rest } = cp;
      const row: Row = { ...rest, key };
      if (file !== undefined) {
        const { intent, ...committed } = file ?? {};
        row.file = file ? { ...committed, writeInProgress: intent ? intent.length : null } : null;
      }
      return row;
    })
    .sort((a, b) =>
      (a.name + a.feed + (a.type ?? "") + a.organizationId).localeCompare(
        b.name + b.feed + (b.type ?? "") + b.organizationId,
      ),
    );
  return { rows, service };
}

const serviceCell = (r: Row) => r.service ?? `(older partner-cli: "${r.profile ?? "?"}")`;
const orgCell = (r: Row) => r.organizationName ?? r.organizationId;

const COLUMNS: Column<Row>[] = [
  { header: "name", value: (r) => r.name },
  { header: "feed", value: (r) => (r.type ? `${r.feed} (${r.type})` : r.feed) },
  { header: "service", value: serviceCell },
  { header: "organization", value: orgCell },
  { header: "rows", value: (r) => r.rows },
  { header: "atStart", value: (r) => r.cursor === null },
  { header: "updatedAt", value: (r) => r.updatedAt },
  { header: "out", value: (r) => r.out },
];

/** When a name has checkpoints of several organizations of this service, only this run's organization's. */
async function ofThisOrganization(ctx: Context, rows: Row[]): Promise<Row[]> {
  if (new Set(rows.map((r) => r.organizationId)).size <= 1) return rows;
  const t = await ctx.target();
  const orgId =
    t.source === "profile" && t.profile?.organization?.id
      ? t.profile.organization.id
      : (await getMe(await ctx.api())).organization.id;
  return rows.filter((r) => r.organizationId === orgId);
}

async function named(ctx: Context, name: string): Promise<{ rows: Row[]; service: string }> {
  const { rows, service } = await rowsFor(ctx);
  const matching = await ofThisOrganization(
    ctx,
    rows.filter((r) => r.name === name),
  );
  if (matching.length === 0)
    throw new UsageError(
      `No saved cursor named "${name}" for ${service}.`,
      'Run "partner-cli cursors list".',
    );
  return { rows: matching, service };
}

export async function listRun(ctx: Context): Promise<void> {
  const { rows, service } = await rowsFor(ctx);
  printList(ctx.io, rows, COLUMNS, `No saved cursors for ${service} yet.`);
}

export async function showRun(name: string, ctx: Context): Promise<void> {
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

export async function resetRun(name: string, ctx: Context): Promise<void> {
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
