// redemptions export, the checks made before any request: what the output file holds against what
// the cursor committed (planFile), and the previous file's unfinished write (repairPreviousFile).
import { OutputChangedError, UsageError } from "../../errors.js";
import type { Context } from "../../context.js";
import {
  type Checkpoint,
  type CheckpointStore,
  describeCursor,
  type Entry,
} from "../../export/checkpoint.js";
import { inspectOutput, openFileOutput, sniffFormat, type Verdict } from "../../export/durable-output.js";
import type { ExportFormat } from "../../export/redemption-rows.js";

export const n = (x: number) => x.toLocaleString("en-US");

/** The ways on after a refusal about `file`. */
export function waysOn(file: string, cursorExists: boolean): string {
  return cursorExists
    ? `Nothing was written and the cursor of ${file} is unchanged. To go on in a new file from where it stopped: --out NEW_FILE --continue-from ${file}. A new --out alone starts its own cursor from the beginning of the feed.`
    : "Nothing was written. Export into a new (or empty) file: --out NEW_FILE (it keeps a cursor of its own).";
}

export interface FilePlan {
  verdict: Extract<Verdict, { kind: "absent" | "intact" | "tail" }>;
  /** The checkpoint that wrote the file (for the organization check after GET /me). */
  owner: Entry | undefined;
  /** The checkpoint of the file this one continues (--continue-from, or a rotation a crash interrupted). */
  continues?: Entry | undefined;
}

export interface PlanInput {
  out: string;
  format: ExportFormat;
  fromStart: boolean;
  /** The real path given to --continue-from, or null. */
  continueFrom: string | null;
  store: CheckpointStore;
}

const newest = (a: Entry, b: Entry) => b.cp.updatedAt.localeCompare(a.cp.updatedAt);
const mainsOf = (entries: readonly Entry[]) =>
  entries.filter((e) => e.cp.feed === "redemptions").sort(newest);

/**
 * Decides, from local facts only (no request, no write), whether this run may append to `out`:
 * the file must be new or empty, or hold exactly what its own cursor committed (plus, at most, a
 * tail its recorded intent explains). A file's cursor is its own: no other file's is ever moved.
 */
export async function planFile(o: PlanInput): Promise<FilePlan> {
  const entries = o.store.of({ kind: "file", path: o.out });
  const refuse = (what: string, exists = entries.length > 0) =>
    new OutputChangedError(`Refusing to append to ${o.out}: ${what}.`, waysOn(o.out, exists));
  const store = entries.find((e) => e.cp.feed === "events");
  if (store) throw refuse(`it is ${describeCursor(store.cp)}, not a redemption export`);
  const owner = mainsOf(entries)[0];
  const continues = continuesFrom(o, owner);
  if (!owner || continues) return planUnowned(o, refuse, continues);
  if (owner.cp.closed)
    throw refuse(
      `its cursor was continued in ${owner.cp.closed.continuedIn} on ${owner.cp.closed.at} (--continue-from); its rows go there now`,
    );
  if (o.fromStart) {
    const v = await inspectOutput(o.out, undefined);
    if (v.kind !== "absent")
      throw refuse(
        `--from-start writes every redemption again, and the file already holds the rows of ${describeCursor(owner.cp)}`,
      );
    return { verdict: v, owner: undefined };
  }
  const written = owner.cp.file?.format ?? (await sniffFormat(o.out));
  if (written !== "unknown" && written !== o.format && (written === "csv" || written === "ndjson"))
    throw refuse(
      `it holds ${written === "csv" ? "CSV" : "NDJSON"} and --format ${o.format} would mix ${o.format === "csv" ? "CSV" : "NDJSON"} rows into it`,
    );
  const v = await inspectOutput(o.out, owner.cp.file ?? { bytes: owner.cp.committedBytes ?? 0 });
  if (v.kind === "changed") throw refuse(`it ${v.reasons.join(" and ")}`);
  return { verdict: v, owner };
}

/**
 * The file whose cursor `out` continues: --continue-from OLD (refused when OLD has no cursor here,
 * or went on elsewhere), or, without the flag, a file closed in favour of `out` by a rotation that
 * stopped before `out` saved its first checkpoint. Undefined when `out` keeps its own cursor.
 */
function continuesFrom(o: PlanInput, owner: Entry | undefined): Entry | undefined {
  const closedForMe = (e: Entry) => e.cp.closed?.continuedIn === o.out;
  if (!o.continueFrom) {
    if (owner) return undefined;
    return mainsOf(o.store.all()).find(closedForMe);
  }
  if (o.continueFrom === o.out) throw new UsageError("--continue-from names the --out file itself.");
  const old = mainsOf(o.store.of({ kind: "file", path: o.continueFrom }))[0];
  if (!old)
    throw new UsageError(
      `--continue-from ${o.continueFrom}: no cursor of this config directory wrote that file.`,
      'See "partner-cli cursors list" for the files that have one.',
    );
  if (owner) {
    // The rotation is done and this file has gone on: the flag left in a cron line changes nothing.
    if (closedForMe(old)) return undefined;
    throw new OutputChangedError(
      `Refusing to continue ${o.continueFrom} in ${o.out}: ${o.out} has a cursor of its own.`,
      "Continue it in a new (or empty) file.",
    );
  }
  if (old.cp.closed && !closedForMe(old))
    throw new OutputChangedError(
      `Refusing to continue ${o.continueFrom}: its cursor was already continued in ${old.cp.closed.continuedIn} on ${old.cp.closed.at}.`,
      `Continue that file instead: --continue-from ${old.cp.closed.continuedIn}.`,
    );
  if (o.fromStart) throw new UsageError("--from-start and --continue-from do not go together.");
  return old;
}

/** A file with no cursor of its own: only a new or empty one is taken. */
async function planUnowned(
  o: PlanInput,
  refuse: (what: string) => OutputChangedError,
  continues: Entry | undefined,
): Promise<FilePlan> {
  const v = await inspectOutput(o.out, undefined);
  if (v.kind === "absent") return { verdict: v, owner: undefined, continues };
  if (v.kind !== "changed") throw new Error("unreachable");
  if (v.reasons[0] !== "is not empty") throw refuse(`it ${v.reasons.join(" and ")}`);
  throw refuse(
    `it is not empty and no partner-cli cursor of this config directory wrote it; a new file's cursor starts from the beginning and never appends to a file it did not write`,
  );
}

/**
 * When a file's cursor goes on in another file (--continue-from), the old file may still end with
 * the unfinished write of a killed run; those rows are written again to the new file, so the tail is
 * cut from the old file, but only when it is provably that write. Anything else about the old file
 * is left alone. The run holds the old file's lock.
 */
export async function repairPreviousFile(
  ctx: Context,
  cp: Checkpoint | undefined,
  assertHeld: () => void,
): Promise<void> {
  const old = cp?.out;
  if (!old || !cp?.file?.intent) return;
  const v = await inspectOutput(old, cp.file);
  if (v.kind !== "tail") return;
  const out = await openFileOutput(old, cp.file.format, v, assertHeld);
  await out.close();
  ctx.io.err(
    `Removed ${n(v.extra)} bytes that an interrupted run wrote to ${old} after its last saved position; those rows are written to the new file.`,
  );
}
