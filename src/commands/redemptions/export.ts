// redemptions export: the cron-safe incremental copy of the redemption feed.
// Guarantees: every row exactly once across runs (the feed loop skips the repeated last page by id);
// the output is fsynced before the checkpoint that covers it is saved; a run records what it is about
// to write before writing it, so the tail a killed run left is cut only when it is provably that
// write; a file that is not exactly what this cursor committed (re-saved, edited, shortened,
// replaced, another format, another cursor's or organization's, or a file it never wrote) is refused
// with exit 2 before any feed request and any write; two runs of one cursor, or two cursors writing
// one file, never run at once (exit 9).
// --format xlsx writes a complete new workbook per run (never appended to, an existing file refused):
// the rows go to a temporary file, and the cursor is saved once, after the workbook is complete,
// fsynced and renamed into place; a run that fails or is interrupted leaves no workbook and no move.
import { resolve } from "node:path";
import { ApiError, CancelledError, OutputChangedError, UsageError } from "../../errors.js";
import { getMe } from "../../api/me.js";
import { listEvents } from "../../api/events.js";
import { getRedemption, redemptionFeed } from "../../api/redemptions.js";
import type { Context } from "../../context.js";
import {
  type Checkpoint,
  checkpointOf,
  type CursorId,
  cursorEntries,
  cursorLockPath,
  describeCursor,
  type Entry,
  findCheckpoint,
  legacyLabel,
  orgLabel,
  outputLockPath,
  positionOf,
  saveCheckpoints,
  serviceOf,
  takeOutputLock,
  writersOf,
} from "../../export/checkpoint.js";
import {
  type DurableOutput,
  type FileState,
  inspectOutput,
  openFileOutput,
  resolveOutPath,
  sniffFormat,
  streamOutput,
  type Verdict,
} from "../../export/durable-output.js";
import { type FeedPosition, runFeed, START } from "../../export/feed-loop.js";
import {
  type Change,
  csvHeader,
  type ExportFormat,
  REDEMPTION_TABLE,
  redemptionCells,
  renderRows,
} from "../../export/redemption-rows.js";
import { type RunLock, takeRunLock } from "../../export/run-lock.js";
import { checkBomForAppend, UTF8_BOM } from "../../csv/write.js";
import { chooseFormat } from "../../io/table-file.js";
import { openXlsxSink, refuseExistingWorkbook, type XlsxSink } from "../../io/xlsx.js";
import type { Redemption } from "../../spec/redemptions.js";

export interface ExportOptions {
  out?: string | undefined;
  format?: string | undefined;
  /** CSV only: a UTF-8 BOM first, written when the file is created (refused on a file without one). */
  bom?: boolean | undefined;
  cursor?: string | undefined;
  fromStart?: boolean | undefined;
  corrections?: boolean | undefined;
  /** Page size of feed reads (1..1,000). */
  limit?: number | undefined;
}

export interface ExportSummary {
  rows: number;
  corrections: number;
  pages: number;
  cursor: string;
  cursorBefore: string | null;
  cursorAfter: string | null;
  out: string | null;
  repairedBytes: number;
}

const CORRECTION_TYPES = ["redemption.excluded", "redemption.restored"] as const;

const XLSX_HINT =
  "Each run writes a new workbook: give it a new name, for example --out redemptions-$(date +%F).xlsx (the cursor carries on where the last workbook ended).";
const n = (x: number) => x.toLocaleString("en-US");

/** The two ways on after a refusal. */
function waysOn(name: string, cursorExists: boolean): string {
  return cursorExists
    ? `Nothing was written and cursor "${name}" is unchanged. To continue where it stopped in a new file: --out NEW_FILE. To write every redemption again into a new file: --from-start --out NEW_FILE.`
    : `Nothing was written. Export into a new (or empty) file: --out NEW_FILE (add --cursor NAME to keep a separate cursor for it).`;
}

interface FilePlan {
  verdict: Extract<Verdict, { kind: "absent" | "intact" | "tail" }>;
  /** The checkpoint that wrote the file (for the organization check after GET /me). */
  owner: Entry | undefined;
}

/**
 * Decides, from local facts only (no request, no write), whether this run may append to `out`:
 * the file must be new or empty, or this cursor's own file holding exactly what it committed (plus,
 * at most, a tail its recorded intent explains).
 */
async function planFile(
  ctx: Context,
  o: {
    out: string;
    /** The path as given, made absolute (older versions saved it so, without resolving symlinks). */
    rawOut: string;
    name: string;
    format: ExportFormat;
    fromStart: boolean;
    service: string;
    label: string;
  },
): Promise<FilePlan> {
  const data = await (await ctx.config()).read();
  const mine = cursorEntries(data, o.service, o.label, "redemptions", o.name);
  const writers = [...writersOf(data, o.out), ...(o.rawOut !== o.out ? writersOf(data, o.rawOut) : [])];
  const own = writers
    .filter((w) => mine.some((m) => m.key === w.key))
    .sort((a, b) => b.cp.updatedAt.localeCompare(a.cp.updatedAt));
  const owner = own[0];
  const stateOf = (cp: Checkpoint) => cp.file ?? { bytes: cp.committedBytes ?? 0 };
  const refuse = (what: string, exists = mine.length > 0) =>
    new OutputChangedError(`Refusing to append to ${o.out}: ${what}.`, waysOn(o.name, exists));

  if (!owner) {
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
  const v = await inspectOutput(o.out, stateOf(owner.cp));
  if (v.kind === "changed") throw refuse(`it ${v.reasons.join(" and ")}`, true);
  return { verdict: v, owner };
}

/**
 * When a cursor moves to another output, its previous file may still end with the unfinished write
 * of a killed run; those rows are written again to the new output, so the tail is cut from the old
 * file, but only when it is provably that write. Anything else about the old file is left alone.
 */
async function repairPreviousFile(
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

export async function exportRun(o: ExportOptions, ctx: Context): Promise<ExportSummary> {
  const format = chooseFormat(o, ["csv", "ndjson", "xlsx"] as const);
  const name = o.cursor ?? "default";
  if (!/^[\w.-]{1,64}$/.test(name))
    throw new UsageError("--cursor must be 1-64 letters, digits, dots, dashes or underscores.");
  const toStdout = o.out === undefined || o.out === "-";
  if (ctx.io.json && toStdout) {
    throw new UsageError(
      "--json prints the summary on stdout, which already carries the rows.",
      "Use --out FILE with --json.",
    );
  }
  const outPath = toStdout ? null : await resolveOutPath(o.out!);
  const rawOut = toStdout ? "" : resolve(o.out!);

  const target = await ctx.target();
  const service = serviceOf(target);
  const label = legacyLabel(target);
  const configDir = ctx.configDir();
  // Both locks before any request: the cursor's, and the output file's (another cursor may name it).
  const locks: RunLock[] = [
    await takeRunLock(cursorLockPath(configDir, service, "redemptions", name), `Export cursor "${name}"`),
  ];
  let output: DurableOutput | undefined;
  let workbook: XlsxSink | undefined;
  try {
    if (outPath) locks.push(await takeOutputLock(configDir, outPath));
    const assertHeld = () => {
      for (const l of locks) l.assertHeld();
    };
    const fromStart = o.fromStart === true;
    // A workbook is never appended to: an existing file is refused, untouched (no request made).
    if (format === "xlsx") await refuseExistingWorkbook(outPath!, XLSX_HINT);
    const plan =
      outPath && format !== "xlsx"
        ? await planFile(ctx, { out: outPath, rawOut, name, format, fromStart, service, label })
        : undefined;
    // --bom writes the BOM only into a new (or empty) file, never in front of content already there.
    if (o.bom && plan && plan.verdict.kind !== "absent") await checkBomForAppend(outPath!);

    const api = await ctx.api();
    const org = (await getMe(api)).organization;
    if (plan?.owner && plan.owner.cp.organizationId !== org.id) {
      throw new OutputChangedError(
        `Refusing to append to ${outPath}: it holds the redemptions of organization ${orgLabel(plan.owner.cp)}, and this run is for ${org.name} (${org.id}); one organization's rows never go into another's file.`,
        waysOn(name, false),
      );
    }
    const store = await ctx.config();
    const data = await store.read();
    const idOf = (feed: "redemptions" | "corrections", type?: string): CursorId => ({
      service,
      organizationId: org.id,
      feed,
      name,
      type: type ?? null,
    });
    const main = findCheckpoint(data, idOf("redemptions"), label);
    if (plan?.owner && plan.owner.key !== main.key && plan.owner.key !== main.adoptFrom) {
      throw new OutputChangedError(
        `Refusing to append to ${outPath}: it is the output of ${describeCursor(plan.owner.cp)}.`,
        waysOn(name, main.cp !== undefined),
      );
    }
    const corr = CORRECTION_TYPES.map((t) => findCheckpoint(data, idOf("corrections", t), label));
    const adopted = [main, ...corr].flatMap((f) => (f.adoptFrom ? [f.adoptFrom] : []));
    if (main.adoptFrom)
      ctx.io.err(
        `Cursor "${name}" was saved by an older partner-cli as "${label}"; it is kept per service and organization now (${service}, ${org.name}) and continues where it stopped.`,
      );
    await repairPreviousFile(ctx, main.cp, outPath, assertHeld);

    let feedPos: FeedPosition = fromStart ? START : positionOf(main.cp);
    const corrPos: FeedPosition[] = corr.map((f) => (fromStart ? START : positionOf(f.cp)));
    let total = fromStart ? 0 : (main.cp?.rows ?? 0);

    const summary: ExportSummary = {
      rows: 0,
      corrections: 0,
      pages: 0,
      cursor: name,
      cursorBefore: feedPos.cursor,
      cursorAfter: feedPos.cursor,
      out: outPath,
      repairedBytes: 0,
    };
    if (format === "xlsx") {
      workbook = await openXlsxSink(outPath!, REDEMPTION_TABLE, {
        sheetName: "Redemptions",
        refuseExisting: { hint: XLSX_HINT },
      });
    } else if (plan) {
      output = await openFileOutput(outPath!, format, plan.verdict, assertHeld);
      if (plan.verdict.kind === "tail") {
        summary.repairedBytes = plan.verdict.extra;
        ctx.io.err(
          `Removed ${n(plan.verdict.extra)} bytes that an interrupted run of cursor "${name}" wrote to ${outPath} after its last saved position (they are exactly the start of the write it had recorded).`,
        );
      } else if (plan.verdict.kind === "intact" && plan.verdict.replaced) {
        ctx.io.err(
          `Note: ${outPath} is another file than the one cursor "${name}" last wrote to, with exactly the content it committed; continuing.`,
        );
      }
    } else output = streamOutput(ctx.io.stdout);
    const out = output;
    const book = workbook;

    /** Saves all three checkpoints in one locked write (`file`: the output's state, with an intent or not). */
    const save = async (file: FileState | null) => {
      assertHeld();
      const common = { organizationName: org.name, out: outPath, now: ctx.clock.now() };
      await saveCheckpoints(
        store,
        [
          [main.key, checkpointOf(idOf("redemptions"), feedPos, { ...common, rows: total, file })],
          ...corr.map((f, i): [string, Checkpoint] => [
            f.key,
            checkpointOf(idOf("corrections", CORRECTION_TYPES[i]), corrPos[i]!, { ...common, rows: 0 }),
          ]),
        ],
        adopted,
      );
    };
    /** One durable step: record the intent, write, fsync, then move the positions and save them. */
    const step = async (text: string, advance: () => void) => {
      if (!out) return;
      const buf = Buffer.from(text, "utf8");
      const intent = buf.length ? out.intentFor(buf) : null;
      if (intent) await save({ ...out.state()!, intent });
      assertHeld();
      await out.append(buf);
      advance();
      await save(out.state());
    };
    /** A page of rows: one durable step, or into the workbook (positions move in memory, saved at the end). */
    const emit = async (
      rows: { redemption: Redemption; change?: Change | undefined }[],
      advance: () => void,
    ) => {
      if (book) {
        assertHeld();
        await book.write(rows.map((r) => redemptionCells(r.redemption, r.change)));
        advance();
      } else await step(renderRows(format as ExportFormat, rows), advance);
    };

    // The header is a write like any other (recorded first, so a kill during it is repairable).
    if (out) await step(format === "csv" && out.empty ? (o.bom ? UTF8_BOM : "") + csvHeader() : "", () => {});

    const limit = o.limit ?? 1000;
    const showProgress = ctx.io.stderrIsTTY && !toStdout;
    const interrupted = () =>
      new CancelledError(
        book
          ? `Interrupted; ${outPath} was not written and cursor "${name}" did not move. Run again to export these rows.`
          : `Interrupted; ${summary.rows} rows exported and saved. Run again to continue.`,
      );
    await runFeed<Redemption>({
      read: (after) => redemptionFeed(api, { after, limit }),
      idOf: (r) => r.id,
      from: feedPos,
      signal: ctx.signal,
      interrupted,
      handle: async (s) => {
        summary.pages++;
        await emit(
          s.fresh.map((redemption) => ({ redemption })),
          () => {
            feedPos = s.next;
            summary.rows += s.fresh.length;
            total += s.fresh.length;
          },
        );
        if (showProgress) ctx.io.stderr.write(`\rExported ${summary.rows} rows…`);
      },
    });
    if (showProgress) ctx.io.stderr.write("\r\u001b[K");
    summary.cursorAfter = feedPos.cursor;

    if (o.corrections) {
      for (let i = 0; i < CORRECTION_TYPES.length; i++) {
        const type = CORRECTION_TYPES[i]!;
        await runFeed({
          read: (after) => listEvents(api, { after, type, limit: 1000 }),
          idOf: (e) => e.id,
          from: corrPos[i]!,
          signal: ctx.signal,
          interrupted,
          handle: async (s) => {
            const rows: { redemption: Redemption; change: Change }[] = [];
            // Every correction in the log gets a change row with the redemption's current state, the
            // first run included: a correction racing the feed read is never lost.
            for (const e of s.fresh) {
              if (e.sample) continue;
              const id = String((e.data as { redemptionId?: unknown }).redemptionId ?? "");
              try {
                const redemption = await getRedemption(api, id);
                rows.push({ redemption, change: { type: e.type, eventId: e.id, occurredAt: e.occurredAt } });
              } catch (err) {
                if (!(err instanceof ApiError && err.status === 404)) throw err;
                ctx.io.err(`Skipped correction ${e.id}: redemption ${id} is no longer readable.`);
              }
            }
            await emit(rows, () => {
              corrPos[i] = s.next;
              summary.corrections += rows.length;
            });
          },
        });
      }
    }

    if (book) {
      // Complete, fsynced and renamed into place first; only then does the cursor move, once.
      assertHeld();
      await book.commit();
      await save(null);
    }
    const where = outPath ?? "stdout";
    const written = summary.rows + summary.corrections > 0;
    const moved = written ? "saved" : "unchanged";
    ctx.io.err(
      `Exported ${summary.rows} new redemption${summary.rows === 1 ? "" : "s"}${o.corrections ? ` and ${summary.corrections} correction${summary.corrections === 1 ? "" : "s"}` : ""} to ${where}${book && book.sheets > 1 ? ` (${book.sheets} sheets: Excel holds 1,048,576 rows a sheet)` : ""}; cursor "${name}" ${moved}.`,
    );
    if (ctx.io.json) ctx.io.outJson({ summary });
    return summary;
  } catch (err) {
    // An unfinished workbook is removed; its rows were never counted (the cursor did not move).
    await workbook?.abort();
    throw err;
  } finally {
    await output?.close().catch(() => {});
    for (const l of locks.reverse()) await l.release().catch(() => {});
  }
}
