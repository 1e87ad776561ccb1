// Workbooks operators have, made NOT by partner-cli: written here with exceljs directly at test
// time (an xlsx from exceljs is not byte-deterministic, so none is committed), and the files of the
// formats partner-cli cannot read (.xls, .ods, .numbers, an encrypted workbook), made minimal with
// the right magic bytes and zip entries.
import { deflateRawSync } from "node:zlib";
import ExcelJS from "exceljs";

/**
 * A CRM's workbook: a "Notes" sheet first, then "Creators" (its own header names; text ids with
 * leading zeros, a date, a formula with a saved result, booleans), then "Numbers" (numeric ids, one
 * zero-padded by its format "000000").
 */
export async function crmWorkbook(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.creator = "Some CRM";
  wb.addWorksheet("Notes").addRow(["Exported from the CRM on 2025-03-01"]);
  const ws = wb.addWorksheet("Creators");
  ws.addRow(["Creator ID", "Full Name", "E-mail", "Joined", "Active"]);
  ws.addRow(["000123", "Zoë Adams", "zoe@example.com", new Date(Date.UTC(2024, 2, 1)), true]);
  const r = ws.addRow(["000124", null, "jurgen@example.de", new Date(Date.UTC(2024, 2, 1, 10, 30)), false]);
  r.getCell(2).value = { formula: '"Jürgen "&"Müller"', result: "Jürgen Müller" } as ExcelJS.CellFormulaValue;
  ws.addRow([]);
  ws.addRow([
    "000125",
    { richText: [{ text: "José " }, { text: "Núñez", font: { bold: true } }] },
    null,
    null,
    "yes",
  ]);
  const nums = wb.addWorksheet("Numbers");
  nums.addRow(["id", "name"]);
  nums.addRow([1234567890123, "Big Number"]);
  const padded = nums.addRow([42, "Padded"]);
  padded.getCell(1).numFmt = "000000";
  nums.addRow([7.5, "Half"]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** A sheet "Sheet1" with the given rows (cells as exceljs takes them). */
export async function sheetWorkbook(rows: unknown[][], sheet = "Sheet1"): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet(sheet);
  for (const row of rows) ws.addRow(row);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** A zip holding the given entries (stored, or deflated when `deflate`). */
export function zip(entries: [string, string | Buffer][], deflate = false): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of entries) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const body = deflate ? deflateRawSync(data) : data;
    const n = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(n.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(deflate ? 8 : 0, 10);
    cd.writeUInt32LE(crc32(data), 16);
    cd.writeUInt32LE(body.length, 20);
    cd.writeUInt32LE(data.length, 24);
    cd.writeUInt16LE(n.length, 28);
    cd.writeUInt32LE(offset, 42);
    parts.push(local, n, body);
    central.push(cd, n);
    offset += 30 + n.length + body.length;
  }
  const cdSize = central.reduce((s, b) => s + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...central, end]);
}

function crc32(b: Buffer): number {
  let c = ~0;
  for (const byte of b) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** The start of an Excel 97-2003 .xls (an OLE2 compound file holding a "Workbook" stream). */
export function xlsFile(): Buffer {
  const b = Buffer.alloc(1024);
  OLE2.copy(b, 0);
  Buffer.from("Workbook", "utf16le").copy(b, 512);
  return b;
}

/** A password-protected .xlsx: an OLE2 file holding "EncryptionInfo" and "EncryptedPackage" streams. */
export function encryptedXlsx(): Buffer {
  const b = Buffer.alloc(1024);
  OLE2.copy(b, 0);
  Buffer.from("EncryptionInfo", "utf16le").copy(b, 512);
  Buffer.from("EncryptedPackage", "utf16le").copy(b, 640);
  return b;
}

/** An OpenDocument spreadsheet: its first entry is `mimetype`, stored. */
export function odsFile(): Buffer {
  return zip([
    ["mimetype", "application/vnd.oasis.opendocument.spreadsheet"],
    ["content.xml", "<office:document-content/>"],
  ]);
}

/** An Apple Numbers file (a zip holding Index/Document.iwa). */
export function numbersFile(): Buffer {
  return zip([
    ["Index/Document.iwa", Buffer.from([0, 1, 2, 3])],
    ["Metadata/Properties.plist", "<plist/>"],
  ]);
}
