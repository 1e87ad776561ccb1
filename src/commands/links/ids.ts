// `links assign --ids FILE`: a CSV with an externalId column (a roster export, an --unassignable
// file) or a plain list with one id per line. The first non-blank line decides: a CSV header that
// names an externalId column (any case) means CSV; anything else means one id per line (so ids
// holding commas or quotes need no quoting there). Ids are trimmed, blank lines skipped, repeats
// dropped; every id is checked as the service would (1 to 100 characters, one line).
import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { parse } from "csv-parse/sync";
import { UsageError } from "../../errors.js";
import { LIMITS } from "../../spec/limits.js";

/** Bigger than any useful id list (10,000 ids) with a few extra columns: refuse before reading. */
const MAX_BYTES = 64 * 1024 * 1024;

export interface IdList {
  ids: string[];
  /** Ids read, repeats included. */
  read: number;
  duplicates: number;
  format: "csv" | "lines";
}

async function readInput(path: string, stdin: Readable): Promise<Buffer> {
  if (path === "-") {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of stdin) {
      const b = Buffer.isBuffer(c) ? c : Buffer.from(String(c));
      size += b.length;
      if (size > MAX_BYTES) throw new UsageError("The id list on stdin is too large (more than 64 MB).");
      chunks.push(b);
    }
    return Buffer.concat(chunks);
  }
  try {
    const { stat } = await import("node:fs/promises");
    const st = await stat(path);
    if (st.isDirectory()) throw new UsageError(`Cannot read ${path}: it is a folder, not a file.`);
    if (st.size > MAX_BYTES) throw new UsageError(`${path} is too large (more than 64 MB) for an id list.`);
    return await readFile(path);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const e = err as NodeJS.ErrnoException;
    throw new UsageError(
      `Cannot read ${path}: ${e.code === "ENOENT" ? "no such file" : e.code === "EACCES" ? "permission denied" : e.message}.`,
    );
  }
}

function decode(buf: Buffer, name: string): string {
  if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff)))
    throw new UsageError(
      `${name} is UTF-16 text; partner-cli reads id lists in UTF-8.`,
      'Save it as "CSV UTF-8".',
    );
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(buf);
  } catch {
    throw new UsageError(`${name} is not valid UTF-8 text.`, 'Save it as "CSV UTF-8" or plain UTF-8 text.');
  }
}

/** Removes the one apostrophe an export adds before a formula-like cell ("'=x" → "=x"). */
function unescapeFormula(v: string): string {
  return /^'+[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(v) ? v.slice(1) : v;
}

function idProblem(id: string): string | undefined {
  if (id.length > LIMITS.creatorExternalIdMax)
    return `is longer than ${LIMITS.creatorExternalIdMax} characters`;
  if (/[\r\n\u2028\u2029]/.test(id)) return "is not one line";
  return undefined;
}

/** Parses an id list (file path or "-" for stdin). Usage errors name the line. */
export async function readIdList(path: string, stdin: Readable): Promise<IdList> {
  const name = path === "-" ? "stdin" : path;
  const text = decode(await readInput(path, stdin), name);
  const lines = text.split(/\r\n|\r|\n/);
  const firstIdx = lines.findIndex((l) => l.trim() !== "");
  if (firstIdx < 0) throw new UsageError(`${name} holds no externalIds.`);

  let header: string[] | undefined;
  try {
    const rec = parse(lines[firstIdx]!, { relax_column_count: true, relax_quotes: true }) as string[][];
    header = rec[0];
  } catch {
    header = undefined;
  }
  const col = header?.findIndex((h) => h.trim().toLowerCase() === "externalid") ?? -1;

  const entries: { id: string; line: number }[] = [];
  let format: IdList["format"];
  if (col >= 0) {
    format = "csv";
    let records: { record: string[]; info: { lines: number } }[];
    try {
      records = parse(text, {
        bom: true,
        relax_column_count: true,
        skip_empty_lines: true,
        info: true,
      }) as never;
    } catch (err) {
      const e = err as Error & { lines?: number };
      throw new UsageError(`${name} is not valid CSV${e.lines ? ` (line ${e.lines})` : ""}: ${e.message}`);
    }
    for (const r of records.slice(1)) {
      const id = unescapeFormula((r.record[col] ?? "").trim());
      if (id !== "") entries.push({ id, line: r.info.lines });
    }
  } else {
    format = "lines";
    lines.forEach((l, i) => {
      const id = l.trim();
      if (id !== "") entries.push({ id, line: i + 1 });
    });
  }

  const bad = entries.flatMap((e) => {
    const p = idProblem(e.id);
    return p ? [`  line ${e.line}: "${e.id.slice(0, 40)}${e.id.length > 40 ? "…" : ""}" ${p}`] : [];
  });
  if (bad.length) {
    throw new UsageError(
      `${name} holds ${bad.length} invalid externalId${bad.length === 1 ? "" : "s"}:\n${bad.slice(0, 10).join("\n")}${bad.length > 10 ? `\n  … and ${bad.length - 10} more` : ""}`,
    );
  }
  const seen = new Set<string>();
  for (const e of entries) seen.add(e.id);
  if (seen.size === 0)
    throw new UsageError(
      `${name} holds no externalIds${format === "csv" ? " in its externalId column" : ""}.`,
    );
  return { ids: [...seen], read: entries.length, duplicates: entries.length - seen.size, format };
}
