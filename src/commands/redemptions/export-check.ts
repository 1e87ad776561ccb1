// redemptions export, the checks made before any request: what the output file holds against what
// the cursor committed (planFile), and the previous file's unfinished write (repairPreviousFile).
import { OutputChangedError } from "../../errors.js";
import type { Context } from "../../context.js";
import {
  type Checkpoint,
  cursorEntries,
  describeCursor,
  type Entry,
  outputLockPath,
  writersOf,
} from "../../export/checkpoint.js";
import { inspectOutput, openFileOutput, sniffFormat, type Verdict } from "../../export/durable-output.js";
import type { ExportFormat } from "../../export/redemption-rows.js";
import { type RunLock, takeRunLock } from "../../export/run-lock.js";

export const n = (x: number) => x.toLocaleString("en-US");

/** The two ways on after a refusal. */
export function waysOn(name: string, cursorExists: boolean): string {
  return cursorExists
    ? `Nothing was written and cursor "${name}" is unchanged. To continue where it stopped in a new file: --out NEW_FILE. To write every redemption again into a new file: --from-start --out NEW_FILE.`
    : `Nothing was written. Export into a new (or empty) file: --out NEW_FILE (add --cursor NAME to keep a separate cursor for it).`;
}

export interface FilePlan {
  verdict: Extract<Verdict, { kind: "absent" | "intact" | "tail" }>;
  /** The checkpoint that wrote the file (for the organization check after GET /me). */
  owner: Entry | undefined;
}

export interface PlanInput {
  out: string;
  /** The path as given, made absolute (older versions saved it so, without resolving symlinks). */
  rawOut: string;
  name: string;
  format: ExportFormat;
  fromStart: boolean;
  service: string;
  label: string;
}

/**
 * Decides, from local facts only (no request, no write), whether this run may append to `out`:
 * the file must be new or empty, or this cursor's own file holding exactly what it committed (plus,
 * at most, a tail its recorded intent explains).
 */
export async function planFile(ctx: Context, o: PlanInput): Promise<FilePlan> {
  const data = await (await ctx.config()).read();
  const mine = cursorEntries(data, o.service, o.label, "redemptions", o.name);
  const writers = [...writersOf(data, o.out), ...(o.rawOut !== o.out ? writersOf(data, o.rawOut) : [])];
  const own = writers
    .filter((w) => mine.some((m) => m.key === w.key))
    .sort((a, b) => b.cp.updatedAt.localeCompare(a.cp.updatedAt));
  const owner = own[0];
  const refuse = (what: string, exists = mine.length > 0) =>
    new OutputChangedError(`Refusing to append to ${o.out}: ${what}.`, waysOn(o.name, exists));
  if (!owner) return planUnowned(o, writers, mine, refuse);
  if (o.fromStart) {
    const v = await inspectOutput(o.out, undefined);
    if (v.kind !== "absent")
      throw refuse(
        `--from-start writes every redemption again, and the file already holds the rows of ${describeCursor(owner.cp)}`,
        true,
      );
    return { verdict: v, owner: undefined };
  }
  const written = owner.cp.file?.format ?? (await sniffFormat(o.out));
  if (written !== "unknown" && written !== o.format && (written === "csv" || written === "ndjson"))
    throw refuse(
      `it holds ${written === "csv" ? "CSV" : "NDJSON"} written by cursor "${o.name}", and --format ${o.format} would mix ${o.format === "csv" ? "CSV" : "NDJSON"} rows into it`,
      true,
    );
  const v = await inspectOutput(o.out, owner.cp.file ?? { bytes: owner.cp.committedBytes ?? 0 });
  if (v.kind === "changed") throw refuse(`it ${v.reasons.join(" and ")}`, true);
  return { verdict: v, owner };
}

/** A file no checkpoint of this cursor wrote: only a new or empty one is taken. */
async function planUnowned(
  o: PlanInput,
  writers: Entry[],
  mine: Entry[],
  refuse: (what: string) => OutputChangedError,
): Promise<FilePlan> {
  const v = await inspectOutput(o.out, undefined);
  if (v.kind === "absent") return { verdict: v, owner: undefined };
  if (v.kind !== "changed") throw new Error("unreachable");
  if (v.reasons[0] !== "is not empty") throw refuse(`it ${v.reasons.join(" and ")}`);
  const other = writers[0];
  if (other)
    throw refuse(
      `it is the output of ${describeCursor(other.cp)}, and cursor "${o.name}" never appends to a file another cursor writes`,
    );
  if (mine.length > 0)
    throw refuse(
      `it is not empty and cursor "${o.name}" did not write it (it last wrote to ${mine[0]!.cp.out ?? "stdout"}); a cursor appends only to the file it writes, or starts a new one`,
    );
  throw refuse(
    `it is not empty and no partner-cli cursor wrote it; cursor "${o.name}" ${o.fromStart ? "starts" : "would start"} from the beginning and never appends to a file it did not write`,
  );
}

/**
 * When a cursor moves to another output, its previous file may still end with the unfinished write
 * of a killed run; those rows are written again to the new output, so the tail is cut from the old
 * file, but only when it is provably that write. Anything else about the old file is left alone.
 */
export async function repairPreviousFile(
  ctx: Context,
  cp: Checkpoint | undefined,
  out: string | null,
  assertHeld: () => void,
): Promise<void> {
  const old = cp?.out;
  if (!old || old === out || !cp?.file?.intent) return;
  const v = await inspectOutput(old, cp.file);
  if (v.kind !== "tail") return;
  let lock: RunLock;
  try {
    lock = await takeRunLock(outputLockPath(ctx.configDir(), old), `The output file ${old}`);
  } catch {
    return; // someone else is at it: leave it
  }
  try {
    const out = await openFileOutput(old, cp.file.format, v, () => {
      assertHeld();
      lock.assertHeld();
    });
    await out.close();
    ctx.io.err(
      `Removed ${n(v.extra)} bytes that an interrupted run of cursor "${cp.name}" wrote to ${old} (its previous file) after its last saved position; those rows are written to the new output.`,
    );
  } catch {
    // best effort: the old file is not this run's output
  } finally {
    await lock.release().catch(() => {});
  }
}
