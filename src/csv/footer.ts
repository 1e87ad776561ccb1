// What stands between the record cutter (src/csv/read.ts) and the reader: Excel's `sep=X` first line
// (a delimiter, not the header), the header itself, and a report's footer.
//
// A report export ends with a footer after a blank line ("Grand Totals (2 records)", "© 2026 Acme
// CRM", "Confidential"): when every line after the file's last blank line has a field count other
// than the header's, those lines are a footer, skipped and counted, never rows (blank lines at the very
// end of the file do not count: nothing follows them). Streamed with bounded memory: a record after a
// blank line whose field count is wrong is held; the next record with the header's field count, or
// the next record after a blank line, hands the held ones out as ordinary rows (in line order, before
// it); the end of the file makes them the footer. Past MAX_HELD records or
// MAX_HELD_CHARS of text the held ones are handed out as rows and nothing is held until the next
// blank line. Both passes of an import cut the same text the same way, so they agree on the count.

/** A record as cut from the text: its first physical line and its text with line ends. */
export interface RawRecord {
  line: number;
  text: string;
}

/** What the gate asks the reader. */
export interface GateReader {
  /** Whether the first record (physical line 1) is a `sep=X` line; if so the reader has taken its delimiter. */
  sepLine(rec: RawRecord): boolean;
  /** The header record (once): settles the delimiter and reads the header's cells. */
  header(rec: RawRecord): void;
  /** Whether a record has the header's field count (true when that cannot be told: it is read as a row). */
  fits(rec: RawRecord): boolean;
}

/** A footer skipped at the end of the file. */
export interface Footer {
  /** Physical lines it spans (from `first` to `last`). */
  lines: number;
  first: number;
  last: number;
  /** The text of its first records, without line ends (at most FOOTER_SHOWN). */
  shown: string[];
  /** How many records it holds. */
  records: number;
}

export const MAX_HELD = 1000;
const MAX_HELD_CHARS = 1024 * 1024;
const FOOTER_SHOWN = 3;

const BREAKS = /\r\n|\r|\n/g;
const withoutEnd = (text: string) => text.replace(/(\r\n|\r|\n)$/, "");

export class RecordGate {
  private state: "start" | "header" | "rows" = "start";
  /** A blank line was seen and no record with the header's field count since. */
  private armed = false;
  private held: RawRecord[] = [];
  private heldChars = 0;
  /** A blank line came after the held records: the next record makes them rows (the end: a footer). */
  private heldThenBlank = false;
  footer: Footer | undefined;

  constructor(private readonly reader: GateReader) {}

  /** Whether a record now must go through `record` (not merely be counted): something may be held. */
  get holding(): boolean {
    return this.armed || this.state !== "rows";
  }

  /** A record cut from the text: appended to `out`, held, or (the sep= line) taken. */
  record(rec: RawRecord, out: RawRecord[]): void {
    if (this.state !== "rows") {
      if (this.state === "start") {
        this.state = "header";
        if (rec.line === 1 && this.reader.sepLine(rec)) return;
      }
      this.state = "rows";
      this.reader.header(rec);
      out.push(rec);
      return;
    }
    if (!this.armed) {
      out.push(rec);
      return;
    }
    if (this.heldThenBlank) this.release(out);
    if (this.reader.fits(rec)) {
      this.release(out);
      this.armed = false;
      out.push(rec);
      return;
    }
    this.held.push(rec);
    this.heldChars += rec.text.length;
    if (this.held.length > MAX_HELD || this.heldChars > MAX_HELD_CHARS) {
      this.release(out);
      this.armed = false;
    }
  }

  /**
   * A blank line: records held before it are rows after all, once a record follows it (with none, at
   * the end of the file, they are the footer); records after it are held again.
   */
  blank(): void {
    if (this.state !== "rows") return;
    if (this.held.length > 0) this.heldThenBlank = true;
    this.armed = true;
  }

  /** A record of blank cells after the header: a blank line (not handed out: the reader skips it anyway). */
  blankRecord(rec: RawRecord, out: RawRecord[]): void {
    if (this.state !== "rows") this.record(rec, out);
    else this.blank();
  }

  /** The end of the file: what is held is the footer. */
  end(): void {
    const held = this.held;
    if (held.length === 0) return;
    const last = held[held.length - 1]!;
    const lastLine = last.line + (withoutEnd(last.text).match(BREAKS)?.length ?? 0);
    this.footer = {
      lines: lastLine - held[0]!.line + 1,
      first: held[0]!.line,
      last: lastLine,
      shown: held.slice(0, FOOTER_SHOWN).map((r) => withoutEnd(r.text)),
      records: held.length,
    };
    this.held = [];
    this.heldChars = 0;
    this.heldThenBlank = false;
  }

  private release(out: RawRecord[]): void {
    if (this.held.length === 0) return;
    for (const r of this.held) out.push(r);
    this.held = [];
    this.heldChars = 0;
    this.heldThenBlank = false;
  }
}

const shorten = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);

/**
 * The note on stderr: `Skipped a 3-line footer after the last blank line (lines 5-7: "Grand Totals
 * (2 records)", "© 2026 Acme CRM", "Confidential"); it is not part of the roster.`
 */
export function footerNote(f: Footer, what = "the roster"): string {
  const where = f.lines === 1 ? `line ${f.first}` : `lines ${f.first}-${f.last}`;
  const more = f.records > f.shown.length ? ", …" : "";
  return `Skipped a ${f.lines}-line footer after the last blank line (${where}: ${f.shown.map(shorten).join(", ")}${more}); it is not part of ${what}.`;
}
