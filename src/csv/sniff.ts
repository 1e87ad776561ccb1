// What an input file is, from its first bytes (not its name: stdin and pipes have none): a zip that
// is not an OpenDocument or Numbers file is taken for an Excel workbook (src/csv/workbook.ts then
// checks it holds xl/workbook.xml); the spreadsheet formats that cannot be read (.xls, .ods,
// .numbers, a password-protected workbook, an HTML or XML "xls") are refused with one sentence on
// how to save them as .xlsx or CSV; anything else is CSV text.
import { UsageError } from "../errors.js";

/** Bytes looked at (the start of the first zip entries, an OLE2 file's first sectors). */
const PEEK_BYTES = 64 * 1024;

export type InputKind = "csv" | "workbook";

export interface Sniffed {
  kind: InputKind;
  /** The input's bytes from the start (the bytes looked at, then the rest). */
  chunks: AsyncIterable<Uint8Array>;
}

const has = (b: Buffer, s: string, enc: BufferEncoding = "latin1") => b.indexOf(Buffer.from(s, enc)) >= 0;

const SAVE_AS =
  'save it as "Excel Workbook (.xlsx)" or "CSV UTF-8", then import that file; nothing was sent.';

/** The sentence for a spreadsheet format that cannot be read, or undefined (CSV or a workbook). */
export function unreadable(name: string, head: Buffer): string | undefined {
  const ole2 = head.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]));
  if (ole2) {
    // An encrypted .xlsx is an OLE2 file holding an "EncryptedPackage" stream (its name in UTF-16).
    if (has(head, "EncryptedPackage", "utf16le") || /\.xlsx$/i.test(name))
      return `${name} is a password-protected workbook, which cannot be read: open it in Excel, remove the password (File > Info > Protect Workbook), and ${SAVE_AS}`;
    return `${name} is an Excel 97-2003 workbook (.xls), which cannot be read: open it in Excel and ${SAVE_AS}`;
  }
  if (head.subarray(0, 4).equals(Buffer.from("PK\x03\x04", "latin1"))) {
    if (has(head, "mimetypeapplication/vnd.oasis.opendocument.spreadsheet"))
      return `${name} is an OpenDocument spreadsheet (.ods), which cannot be read: open it in LibreOffice or Excel and ${SAVE_AS}`;
    if (has(head, "Index/Document.iwa"))
      return `${name} is an Apple Numbers file, which cannot be read: in Numbers choose File > Export To > Excel (or CSV), then import that file; nothing was sent.`;
    return undefined;
  }
  const text = head
    .subarray(0, 4096)
    .toString("latin1")
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, "")
    .trimStart();
  if (/^<\?xml/i.test(text) && text.includes("urn:schemas-microsoft-com:office:spreadsheet"))
    return `${name} is an Excel 2003 XML spreadsheet, which cannot be read: open it in Excel and ${SAVE_AS}`;
  if (/\.xls$/i.test(name) && /^<(!doctype html|html|table|meta|\?xml)/i.test(text))
    return `${name} is a web page (HTML) named .xls, not a workbook, and cannot be read: open it in Excel and ${SAVE_AS}`;
  return undefined;
}

/** Looks at the first bytes: a workbook, CSV, or (thrown) a format that cannot be read. */
export async function sniff(name: string, source: AsyncIterable<Uint8Array>): Promise<Sniffed> {
  const it = source[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < PEEK_BYTES) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    seen.push(r.value);
    size += r.value.length;
  }
  const head = Buffer.concat(seen, size);
  const why = unreadable(name, head);
  if (why) {
    await it.return?.();
    throw new UsageError(why);
  }
  const zip = head.subarray(0, 4).equals(Buffer.from("PK\x03\x04", "latin1"));
  async function* replay(): AsyncGenerator<Uint8Array> {
    try {
      yield* seen;
      if (done) return;
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        yield r.value;
      }
    } finally {
      await it.return?.();
    }
  }
  return { kind: zip ? "workbook" : "csv", chunks: replay() };
}
