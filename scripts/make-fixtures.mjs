// The corpus of input files operators really have (test/fixtures/files/): what Excel and CRM exports
// write, byte for byte. Each file has a test of its exact outcome in test/roster/files.test.ts, and
// test/roster/fixtures.test.ts checks that the committed files are what this script makes.
//   node scripts/make-fixtures.mjs    (re)write test/fixtures/files/
// The 50,000-row file with a misplaced quote is not committed: tests make it with bigMisplacedQuote().
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const FIXTURES_DIR = fileURLToPath(new URL("../test/fixtures/files/", import.meta.url));

const crlf = (lines) => `${lines.join("\r\n")}\r\n`;
const lf = (lines) => `${lines.join("\n")}\n`;
/** The Windows-1252 characters at 0x80-0x9F these files use (the rest of the code page is Latin-1). */
const CP1252_HIGH = new Map([
  ["€", 0x80],
  ["’", 0x92],
  ["“", 0x93],
  ["”", 0x94],
]);
/** Windows-1252 bytes of a string of Latin-1 characters and those of CP1252_HIGH. */
const cp1252 = (s) =>
  Buffer.from(
    [...s].map((ch) => {
      const c = CP1252_HIGH.get(ch) ?? ch.charCodeAt(0);
      if (c > 0xff || (c >= 0x80 && c <= 0x9f && !CP1252_HIGH.has(ch)))
        throw new Error(`not in Windows-1252 here: ${ch}`);
      return c;
    }),
  );
/**
 * Mac Roman ("macintosh") bytes: nothing in Node encodes it, so a table of the letters these files
 * use (checked against TextDecoder's "macintosh" when the file is made).
 */
const MAC_ROMAN = new Map([
  ["ç", 0x8d],
  ["é", 0x8e],
  ["ë", 0x91],
  ["ñ", 0x96],
  ["ú", 0x9c],
  ["ü", 0x9f],
]);
const macRoman = (s) => {
  const bytes = Buffer.from(
    [...s].map((ch) => {
      const c = MAC_ROMAN.get(ch) ?? ch.charCodeAt(0);
      if (c > 0x7f && !MAC_ROMAN.has(ch)) throw new Error(`not in the Mac Roman table: ${ch}`);
      return c;
    }),
  );
  const d = new TextDecoder("macintosh", { fatal: true });
  if (d.decode(bytes, { stream: true }) + d.decode() !== s) throw new Error("Mac Roman table is wrong");
  return bytes;
};
const cr = (lines) => `${lines.join("\r")}\r`;
const utf16le = (s) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, "utf16le")]);
const utf16be = (s) => {
  const b = Buffer.from(s, "utf16le");
  for (let i = 0; i < b.length; i += 2) [b[i], b[i + 1]] = [b[i + 1], b[i]];
  return Buffer.concat([Buffer.from([0xfe, 0xff]), b]);
};

/** Three creators with the names Excel users type. */
const PEOPLE = [
  ["fx-1", "Zoë Adams", "zoe@example.com", "@zoe", "true"],
  ["fx-2", "Jürgen Müller", "jurgen@example.de", "@jmuller", "true"],
  ["fx-3", "José Núñez", "jose@example.es", "", "false"],
];
const HEADER = ["externalId", "name", "email", "handle", "active"];
const rows = (d, people = PEOPLE, header = HEADER) => [header.join(d), ...people.map((p) => p.join(d))];

/** name → file bytes. */
export function fixtures() {
  const f = new Map();
  f.set(".gitattributes", Buffer.from("# Bytes exactly as made by scripts/make-fixtures.mjs\n* binary\n"));
  // Excel on Windows, "CSV (Comma delimited)": Windows-1252, CRLF.
  f.set("excel-cp1252.csv", cp1252(crlf(rows(","))));
  // A CRM export in ISO-8859-1 (latin1).
  f.set(
    "crm-latin1.csv",
    cp1252(
      lf(
        rows(",", [
          ["la-1", "Françoise Ångström", "francoise@example.fr", "@fa", "yes"],
          ["la-2", "Øyvind Ærø", "oyvind@example.no", "@oy", "no"],
        ]),
      ),
    ),
  );
  // Excel on Windows with typographic quotes and the euro sign (Windows-1252's 0x80-0x9F): line 2
  // is not UTF-8 at "á", and its preview must show ’ as the import reads it.
  f.set(
    "cp1252-quotes.csv",
    cp1252(
      crlf(
        rows(",", [
          ["cq-1", "Siobhán O’Brien", "siobhan@example.ie", "@siobhan", "true"],
          ["cq-2", "Zoë “Zo” Adams", "zo@example.com", "@zo", "true"],
          ["cq-3", "Café € Owner", "cafe@example.fr", "", "false"],
        ]),
      ),
    ),
  );
  // A classic Mac "CSV": Mac Roman, lines ended by CR only. As windows-1252, "ç" (0x8D) is the
  // control character U+008D on line 3.
  f.set(
    "mac-roman-cr.csv",
    macRoman(
      cr(
        rows(",", [
          ["mr-1", "Zoë Adams", "zoe@example.com", "@zoe", "true"],
          ["mr-2", "François Müller", "francois@example.fr", "@fmuller", "true"],
          ["mr-3", "José Núñez", "jose@example.es", "", "false"],
        ]),
      ),
    ),
  );
  // Excel "Unicode text": UTF-16 LE with a byte order mark, tab-separated, CRLF.
  f.set("excel-unicode-utf16le.txt", utf16le(crlf(rows("\t"))));
  // The same in UTF-16 BE with a byte order mark (some Mac tools).
  f.set("utf16be-bom.txt", utf16be(crlf(rows("\t"))));
  // Excel "CSV UTF-8": a byte order mark, CRLF.
  f.set("excel-utf8-bom.csv", Buffer.from(`\ufeff${crlf(rows(","))}`));
  // Plain UTF-8, LF, no byte order mark.
  f.set("utf8.csv", Buffer.from(lf(rows(","))));
  // European Excel: ";" between fields (and a decimal comma in an extra column).
  f.set(
    "excel-semicolon.csv",
    cp1252(
      crlf([
        "externalId;name;email;handle;active;score",
        "se-1;Zoë Adams;zoe@example.com;@zoe;true;4,5",
        'se-2;"Müller; Jürgen";jurgen@example.de;;false;3,0',
      ]),
    ),
  );
  f.set(
    "tab-separated.tsv",
    Buffer.from(lf(["externalId\tname\temail", "tb-1\tZoë Adams\tzoe@example.com", "tb-2\tAnn, B.\t"])),
  );
  f.set("pipe.csv", Buffer.from(lf(["externalId|name|active", "pp-1|Zoë Adams|yes", "pp-2|Bo, Jr.|no"])));
  // A CRM's headers and status words.
  f.set(
    "crm-headers.csv",
    Buffer.from(
      crlf([
        "Creator ID,Full Name,E-mail,Instagram,Status",
        "crm-1,Amara Okafor,amara@example.com,@amaracooks,Active",
        "crm-2,Priya Evans,priya@example.co.uk,@priyaeats,Inactive",
        "crm-3,Wei Zhang,wei@example.com,,ACTIVE",
      ]),
    ),
  );
  // Every status word, in several cases, and one the import cannot read (line 14).
  const words = [
    "true",
    "FALSE",
    "Yes",
    "no",
    "Y",
    "n",
    "1",
    "0",
    "active",
    "Inactive",
    "ENABLED",
    "disabled",
  ];
  f.set(
    "status-words.csv",
    Buffer.from(
      lf([
        "externalId,name,active",
        ...words.map((w, i) => `sw-${i + 1},Status ${w},${w}`),
        "sw-13,Bad,maybe",
      ]),
    ),
  );
  // A hand-edited name with quotes inside an unquoted field, on line 4.
  f.set(
    "misplaced-quote.csv",
    Buffer.from(
      crlf([
        "externalId,name,email",
        "mq-1,Ann,ann@example.com",
        "mq-2,Bob,",
        'mq-3,Tom "The Bomb" Jones,',
        "mq-4,Cy,",
      ]),
    ),
  );
  // A quoted cell over two lines (line 3-4) before a quote that is never closed on line 6.
  f.set(
    "unclosed-quote.csv",
    Buffer.from(
      lf([
        "externalId,name,handle",
        "uq-1,Ann,@ann",
        'uq-2,"Bob',
        'Builder",@bob',
        "uq-3,Cy,@cy",
        'uq-4,"Dee,@dee',
        "uq-5,Eve,@eve",
      ]),
    ),
  );
  // Blank lines, lines of spaces, all-blank records and Excel's trailing empty columns.
  f.set(
    "blank-and-trailing.csv",
    Buffer.from(
      crlf([
        "externalId,name,email,,",
        "",
        "bt-1,Ann,ann@example.com,,",
        "   ",
        ",,,,",
        "bt-2,Bob,,,",
        "bt-3,Cy",
        "bt-4,Dee,,,,,",
        "bt-5,Eve,,,,x",
        "",
        "",
      ]),
    ),
  );
  // CRM and report export quirks (test/roster/crm-quirks.test.ts).
  // A pipe-delimited CRM export that never quotes: a literal quote in a name on line 3.
  f.set(
    "crm-pipe-literal-quote.txt",
    Buffer.from(
      lf([
        "externalId|name|email",
        "a-0|Ann Lee|ann@example.com",
        'a-1|Bo "B" Ray|bo@example.com',
        'a-2|"Cy"|cy@example.com',
      ]),
    ),
  );
  // Two columns both named "email" (personal, then work).
  f.set(
    "duplicate-email-columns.csv",
    Buffer.from(
      crlf([
        "externalId,name,email,handle,email",
        "de-1,Dee Park,dee@home.example,@dee,dee@work.example",
        "de-2,Eli Roth,eli@home.example,,eli@work.example",
      ]),
    ),
  );
  // A CRM report: two rows, a blank line, then a 3-line footer.
  f.set(
    "report-footer.csv",
    Buffer.from(
      crlf([
        "externalId,name,email",
        "rf-1,Ann Lee,ann@example.com",
        "rf-2,Bo Ray,bo@example.com",
        "",
        "Grand Totals (2 records)",
        "© 2026 Acme CRM",
        "Confidential",
      ]),
    ),
  );
  // Excel's "sep=;" first line (after a UTF-8 byte order mark): the header is line 2.
  f.set(
    "excel-sep-line.csv",
    Buffer.from(
      `\ufeff${crlf(["sep=;", "externalId;name;email", "sl-1;Zoë Adams;zoe@example.com", "sl-2;Bo, Jr.;bo@example.com"])}`,
    ),
  );
  languageFixtures(f);
  return f;
}

/** Rosters with headers and status words in other languages (test/roster/no-name.test.ts). */
function languageFixtures(f) {
  // Excel in Spanish on Windows, "CSV (delimitado por comas)": ";", Windows-1252, CRLF.
  f.set(
    "roster-es.csv",
    cp1252(
      crlf([
        "ID;Nombre;Correo;Usuario;Estado",
        "es-1;José Núñez;jose@example.es;@josen;Activo",
        "es-2;María Pérez;maria@example.es;;Inactivo",
        "es-3;Begoña Ibáñez;;@begona;sí",
        "es-4;Iñaki Muñoz;inaki@example.es;@inaki;no",
      ]),
    ),
  );
  // Excel in German, "CSV UTF-8": a byte order mark, ";", CRLF.
  f.set(
    "roster-de.csv",
    Buffer.from(
      `\ufeff${crlf([
        "Kennung;Vollständiger Name;E-Mail-Adresse;Benutzername;Status",
        "de-1;Jürgen Müller;jurgen@example.de;@jmuller;aktiv",
        "de-2;Björn Weiß;bjorn@example.de;;inaktiv",
        "de-3;Zoë Größ;;@zoeg;ja",
        "de-4;Ümit Özdemir;umit@example.de;@umit;Nein",
      ])}`,
    ),
  );
  // The Spanish roster with a column that is not the name under another name: no name column.
  f.set(
    "roster-es-sin-nombre.csv",
    cp1252(
      crlf([
        "ID;Nombre artístico;Correo;Estado",
        "es-1;Pepe el Cocinero;jose@example.es;Activo",
        "es-2;La Chef María;maria@example.es;Inactivo",
        "es-3;Begoña Cocina;begona@example.es;Sí",
      ]),
    ),
  );
}

/**
 * A roster of `rows` data rows where the row on physical line `badLine` holds a misplaced quote;
 * every 1,000th row before it has a quoted name over two lines, so record numbers and physical lines
 * differ. Returns the text and the line of the bad row.
 */
export function bigMisplacedQuote(rows = 50_000, badRow = 30_000) {
  const out = ["externalId,name"];
  let line = 1;
  let badLine = -1;
  for (let i = 1; i <= rows; i++) {
    line++;
    if (i === badRow) {
      out.push(`big-${i},Tom "The Bomb" Jones`);
      badLine = line;
    } else if (i % 1000 === 0) {
      out.push(`big-${i},"Two\nLines ${i}"`);
      line++;
    } else out.push(`big-${i},Name ${i}`);
  }
  return { text: `${out.join("\r\n")}\r\n`, badLine };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = fixtures();
  mkdirSync(FIXTURES_DIR, { recursive: true });
  for (const name of readdirSync(FIXTURES_DIR)) if (!files.has(name)) rmSync(FIXTURES_DIR + name);
  for (const [name, bytes] of files) writeFileSync(FIXTURES_DIR + name, bytes);
  process.stdout.write(`Wrote ${files.size} files to ${FIXTURES_DIR}\n`);
}
