// What cursors list | show | reset read: the saved checkpoints of exports and event syncs of the
// service this run talks to (all its organizations; entries saved by older versions for this profile too).
import { getMe } from "../../api/me.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { allEntries, type Checkpoint, legacyLabel, ofTarget, serviceOf } from "../../export/checkpoint.js";
import type { Column } from "../../io/render.js";

export interface Row extends Omit<Checkpoint, "file"> {
  key: string;
  /** The output file's committed state, without the intent's digests. */
  file?: Record<string, unknown> | null | undefined;
}

export async function rowsFor(ctx: Context): Promise<{ rows: Row[]; service: string }> {
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

export const serviceCell = (r: Row) => r.service ?? `(older partner-cli: "${r.profile ?? "?"}")`;
const orgCell = (r: Row) => r.organizationName ?? r.organizationId;

export const COLUMNS: Column<Row>[] = [
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

export async function named(ctx: Context, name: string): Promise<{ rows: Row[]; service: string }> {
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
