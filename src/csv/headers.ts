// One header matcher for every input file (roster import, `links assign --ids`): which column holds
// which creator field. Matching ignores case, spaces, "_" and "-"; the field's own name wins over the
// common names other tools use for it (a CRM's "Creator ID", "Full Name", "E-mail", "Instagram",
// "Status"); `--column FIELD=HEADER` wins over both. Columns left over are named, with a
// "did you mean --column ...?" line for those that look like a field. Columns with identical names
// (two "email" columns) are chosen by position: `--column email=#4` is the 4th column (a column
// literally named "#4" wins).
import { UsageError } from "../errors.js";

export const ROSTER_FIELDS = ["externalId", "name", "email", "handle", "active"] as const;
export type RosterField = (typeof ROSTER_FIELDS)[number];

/** Letters without their accents ("Correo electrónico" → "Correo electronico"); ASCII text as it is. */
export const withoutAccents = (s: string) =>
  /[^\u0000-\u007f]/.test(s) ? s.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC") : s;

/**
 * Compares header names: case, accents, spaces, "_", "-", "." and apostrophes do not count
 * ("E-Mail-Adresse" is "emailadresse", "Nom d'utilisateur" is "nomdutilisateur").
 */
export const loose = (s: string) => withoutAccents(s.toLowerCase()).replace(/[\s_\-.'\u2019]+/g, "");

/**
 * Other names for each field, as `loose` makes them: English, then Spanish, French, German and
 * Portuguese. No name is under two fields (test/roster/mapping-languages.test.ts checks it). A bare
 * "código"/"code" is not an id: a roster's code column is as often a discount code.
 */
const SYNONYMS: Record<RosterField, readonly string[]> = {
  externalId: [
    ...["creatorid", "id", "externalcreatorid"],
    ...[
      "idcreador",
      "idcreadora",
      "iddelcreador",
      "identificador",
      "identificadordelcreador",
      "codigocreador",
      "codigodelcreador",
    ],
    ...["idcreateur", "idcreatrice", "identifiant", "identifiantcreateur", "identifiantducreateur"],
    ...["kennung", "creatorkennung", "idnummer"],
    ...["idcriador", "idcriadora", "iddocriador", "identificadordocriador", "codigodocriador"],
  ],
  name: [
    ...["fullname", "creatorname", "displayname"],
    ...["nombre", "nombrecompleto", "nombreyapellidos", "nombresyapellidos", "nombredelcreador"],
    ...["nom", "nomcomplet", "nomducreateur", "prenometnom", "nometprenom"],
    ...["vollstandigername", "vollername", "vornameundname"],
    ...["nome", "nomecompleto", "nomedocriador"],
  ],
  email: [
    ...["emailaddress", "mail"],
    ...["correo", "correoelectronico", "direcciondecorreo", "direcciondecorreoelectronico"],
    ...["courriel", "adresseemail", "adressemail", "adressecourriel", "adresseelectronique"],
    ...["emailadresse", "mailadresse"],
    ...["enderecodeemail", "correioeletronico", "correioelectronico"],
  ],
  handle: [
    ...["instagram", "username", "socialhandle", "instagramhandle"],
    ...["usuario", "nombredeusuario", "usuariodeinstagram", "cuentadeinstagram"],
    ...["pseudo", "pseudonyme", "nomdutilisateur", "identifiantinstagram", "compteinstagram"],
    ...["benutzername", "nutzername", "instagramname"],
    ...["nomedeusuario", "usuariodoinstagram", "contadoinstagram"],
  ],
  active: [
    ...["status", "enabled"],
    ...["estado", "activo", "activa", "situacion"],
    ...["statut", "actif", "etat"],
    ...["aktiv"],
    ...["ativo", "ativa", "situacao"],
  ],
};

/** Synonyms for every field (for the tests). */
export const HEADER_SYNONYMS: Readonly<Record<RosterField, readonly string[]>> = SYNONYMS;

/** Columns of a rejects file (src/commands/roster/import.ts) that an import reads past silently. */
export const REJECTS_COLUMNS = ["line", "reasons"] as const;

export interface ColumnMap {
  /** Column index of each field found. */
  index: Partial<Record<RosterField, number>>;
  /** The header names, as read. */
  headers: readonly string[];
  /** How each field was found, for the note on stderr. */
  how: Partial<Record<RosterField, "flag" | "name" | "synonym">>;
  /** Non-blank headers no field uses (a rejects file's line and reasons columns not included). */
  ignored: string[];
  /** "Did you mean" suggestions for ignored columns that look like a field. */
  suggestions: { field: RosterField; header: string }[];
  /** A name column not read as the name because the file splits names ("Nom" beside "Prénom"). */
  splitName?: { header: string; partner: string } | undefined;
}

/**
 * Headers of a name split in two columns. Beside one of them, a "Nom" (French: family name), "Name"
 * (German: often the family name) or "Nombre" (Spanish: given name) holds half the name: it is not
 * read as the name (the halves are not joined; `--column name=...` reads it all the same).
 */
const NAME_HALVES = new Set([
  ...["firstname", "lastname", "givenname", "surname", "familyname"],
  ...["apellido", "apellidos", "primerapellido", "segundoapellido"],
  ...["prenom", "prenoms", "nomdefamille", "nomdusage"],
  ...["vorname", "vornamen", "nachname", "familienname"],
  ...["sobrenome", "primeironome", "ultimonome", "apelido"],
]);

/** The ignored header that most likely holds the names (for a hint), if any. */
export function nameLikeColumn(map: ColumnMap): string | undefined {
  if (map.splitName) return map.splitName.header;
  return (
    map.ignored.find((h) => resembles(h, ["name"]) === "name") ??
    map.ignored.find((h) => /name|nom/.test(loose(h)))
  );
}

function fieldNamed(name: string): RosterField | undefined {
  return ROSTER_FIELDS.find((f) => f.toLowerCase() === name.trim().toLowerCase());
}

/** Parses repeated `--column FIELD=HEADER` flags. `allowed` limits the fields (an --ids file: externalId). */
export function parseColumnFlags(
  flags: readonly string[],
  allowed: readonly RosterField[] = ROSTER_FIELDS,
): Map<RosterField, string> {
  const out = new Map<RosterField, string>();
  for (const flag of flags) {
    const eq = flag.indexOf("=");
    const field = eq > 0 ? fieldNamed(flag.slice(0, eq)) : undefined;
    const header = eq > 0 ? flag.slice(eq + 1).trim() : "";
    if (eq <= 0 || header === "") {
      throw new UsageError(
        `--column "${flag}" is not FIELD=HEADER.`,
        `Example: --column externalId="Creator ID". Fields: ${allowed.join(", ")}.`,
      );
    }
    if (!field || !allowed.includes(field)) {
      throw new UsageError(
        allowed.length === ROSTER_FIELDS.length
          ? `--column "${flag}": "${flag.slice(0, eq)}" is not a roster field.`
          : `--column "${flag}": only ${allowed.join(", ")} can be mapped here.`,
        `Fields: ${allowed.join(", ")}.`,
      );
    }
    if (out.has(field)) throw new UsageError(`--column maps ${field} twice.`);
    out.set(field, header);
  }
  return out;
}

const list = (hs: readonly string[]) => hs.map((h) => `"${h}"`).join(", ");

/** A header as a shell word for a suggested command line. */
export function shellHeader(h: string): string {
  return /^[A-Za-z0-9_.@%+:,/#-]+$/.test(h) ? h : `"${h.replace(/(["\\$`])/g, "\\$1")}"`;
}

/** Edit distance, for typos in short header names ("emial"). */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** The field a header name looks like, if any (for "did you mean"). */
export function resembles(header: string, fields: readonly RosterField[]): RosterField | undefined {
  const h = loose(header);
  if (h.length < 2) return undefined;
  // "Influencer ID", "member_id", "partnerId": an identifier column.
  if (
    fields.includes("externalId") &&
    /(^|[^A-Za-z]|[a-z](?=I[dD]\b))(id|ID|Id|identifier)([^a-z]|$)/.test(header)
  )
    return "externalId";
  // The field whose name the header holds, the longest such name deciding ("Nombre de usuario
  // TikTok" holds "nombre" and "nombredeusuario": a handle).
  let best: { f: RosterField; n: number } | undefined;
  for (const f of fields) {
    for (const n of [f.toLowerCase(), ...SYNONYMS[f]])
      if ((n === h || (n.length >= 4 && h.includes(n))) && n.length > (best?.n ?? 0))
        best = { f, n: n.length };
  }
  if (best) return best.f;
  for (const f of fields) {
    const names = [f.toLowerCase(), ...SYNONYMS[f]];
    if (names.some((n) => n.length >= 4 && distance(n, h) <= (n.length >= 8 ? 2 : 1))) return f;
  }
  return undefined;
}

export interface MapOptions {
  /** The fields this file can hold (an --ids file: externalId only). */
  fields?: readonly RosterField[];
  /** The delimiter the file was read with, for the "looks delimited by" hint. */
  delimiter?: string | undefined;
}

const DELIMITER_NAMES: Record<string, string> = { ",": '","', ";": '";"', "\t": "tab", "|": '"|"' };
export const delimiterName = (d: string) => DELIMITER_NAMES[d] ?? JSON.stringify(d);

/** Header names compared as --column compares them: case and surrounding spaces do not count. */
const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
const hasIdentical = (hs: readonly string[]) => hs.some((h, i) => hs.findIndex((o) => same(o, h)) !== i);
/** "columns 3 and 5" (1-based). */
const numbered = (at: readonly number[]) =>
  `columns ${at
    .slice(0, -1)
    .map((i) => i + 1)
    .join(", ")} and ${at[at.length - 1]! + 1}`;
/** "--column email=#3 or --column email=#5". */
const byPosition = (field: RosterField, at: readonly number[]) => {
  const flags = at.map((i) => `--column ${field}=#${i + 1}`);
  return `${flags.slice(0, -1).join(", ")} or ${flags[flags.length - 1]}`;
};
const POSITION_RE = /^#(\d+)$/;

/**
 * The column `--column FIELD=HEADER` names: by name (case and surrounding spaces aside), else by
 * position (`#4`: the 4th column). Two columns with that name, or no such column: a usage error.
 */
function flagColumn(path: string, headers: readonly string[], field: RosterField, header: string): number {
  const named = headers.flatMap((h, i) => (same(h, header) ? [i] : []));
  if (named.length > 1) {
    throw new UsageError(
      `--column ${field}=${header}: ${path} has ${named.length} columns named "${headers[named[0]!]!.trim()}" (${numbered(named)}); their names are identical, so the name cannot choose one.`,
      `Choose one by its position: ${byPosition(field, named)}.`,
    );
  }
  if (named.length === 1) return named[0]!;
  const pos = POSITION_RE.exec(header.trim());
  if (pos) {
    const n = Number(pos[1]);
    if (n >= 1 && n <= headers.length) return n - 1;
    throw new UsageError(
      `--column ${field}=${header}: ${path} has ${headers.length} column${headers.length === 1 ? "" : "s"}; there is no column ${n}.`,
      `Its columns are: ${headers.map((h, i) => `#${i + 1} "${h}"`).join(", ")}.`,
    );
  }
  throw new UsageError(
    `--column ${field}=${header}: ${path} has no column "${header}".`,
    `Its columns are: ${list(headers)}.`,
  );
}

/** Matches the header row to the fields. Throws a UsageError the user can act on. */
export function mapColumns(
  path: string,
  headers: readonly string[],
  flags: Map<RosterField, string>,
  o: MapOptions = {},
): ColumnMap {
  const fields = o.fields ?? ROSTER_FIELDS;
  const index: Partial<Record<RosterField, number>> = {};
  const how: ColumnMap["how"] = {};
  const used = new Set<number>();
  for (const [field, header] of flags) {
    const at = flagColumn(path, headers, field, header);
    if (used.has(at)) throw new UsageError(`--column maps column "${headers[at]}" to two fields.`);
    index[field] = at;
    how[field] = "flag";
    used.add(at);
  }
  // The field's own name first, then the other common names; two candidates at one level need a choice.
  for (const level of ["name", "synonym"] as const) {
    for (const field of fields) {
      if (index[field] !== undefined) continue;
      const names = level === "name" ? [field.toLowerCase()] : SYNONYMS[field];
      const matches = headers
        .map((h, i) => ({ h, i }))
        .filter(({ h, i }) => !used.has(i) && names.includes(loose(h)));
      if (matches.length > 1) {
        const same = hasIdentical(matches.map((m) => m.h));
        throw new UsageError(
          `${path} has ${matches.length} columns that could be ${field}: ${list(matches.map((m) => m.h))}${same ? `; their names are identical (${numbered(matches.map((m) => m.i))})` : ""}.`,
          same
            ? `Choose one by its position: ${byPosition(
                field,
                matches.map((m) => m.i),
              )}.`
            : `Choose one with --column ${field}=${shellHeader(matches[0]!.h)}.`,
        );
      }
      if (matches[0]) {
        index[field] = matches[0].i;
        how[field] = level;
        used.add(matches[0].i);
      }
    }
  }
  if (index.externalId === undefined) {
    const single = headers.length === 1 ? headers[0]! : undefined;
    const other = single
      ? [";", "\t", "|", ","].find((d) => d !== o.delimiter && single.includes(d))
      : undefined;
    if (other) {
      throw new UsageError(
        `${path} has no externalId column: its header is one column, "${single}", which looks delimited by ${delimiterName(other)}.`,
        `Run again with --delimiter ${other === "\t" ? "tab" : `"${other}"`}${o.delimiter ? "" : " (the header line decides the delimiter otherwise)"}.`,
      );
    }
    const guess = headers.find((h, i) => !used.has(i) && resembles(h, ["externalId"]) === "externalId");
    throw new UsageError(
      `${path} has no externalId column. The columns found are: ${list(headers)}.`,
      guess
        ? `Did you mean --column externalId=${shellHeader(guess)}?`
        : 'Name the column "externalId" (or "Creator ID", "id") or map it, e.g. --column externalId="Creator ID".',
    );
  }
  const splitName = unmapHalfName(headers, index, how, used);
  const ignored: string[] = [];
  const suggestions: ColumnMap["suggestions"] = [];
  headers.forEach((h, i) => {
    if (used.has(i) || h.trim() === "") return;
    if ((REJECTS_COLUMNS as readonly string[]).includes(loose(h))) return;
    // A name another column has too can only be chosen by its position.
    const twin = hasIdentical(headers.filter((o) => same(o, h)));
    ignored.push(twin ? `${h} (#${i + 1})` : h);
    const f = h === splitName?.header ? undefined : resembles(h, fields);
    if (f) suggestions.push({ field: f, header: twin ? `#${i + 1}` : h });
  });
  return { index, headers, how, ignored, suggestions, splitName };
}

/** Un-maps a name column found by its name beside a column of the other half of a name (NAME_HALVES). */
function unmapHalfName(
  headers: readonly string[],
  index: ColumnMap["index"],
  how: ColumnMap["how"],
  used: Set<number>,
): ColumnMap["splitName"] {
  const at = index.name;
  if (at === undefined || how.name === "flag") return undefined;
  const partner = headers.find((h, i) => !used.has(i) && NAME_HALVES.has(loose(h)));
  if (partner === undefined) return undefined;
  delete index.name;
  delete how.name;
  used.delete(at);
  return { header: headers[at]!, partner };
}

/** The stderr lines that say how the columns were read: synonyms used, columns ignored, suggestions. */
export function describeMapping(map: ColumnMap, what = "the roster"): string[] {
  const lines: string[] = [];
  const mapped = (Object.keys(map.index) as RosterField[]).sort(
    (a, b) => ROSTER_FIELDS.indexOf(a) - ROSTER_FIELDS.indexOf(b),
  );
  if (mapped.some((f) => map.how[f] === "synonym"))
    lines.push(`Columns: ${mapped.map((f) => `${f} from "${map.headers[map.index[f]!]}"`).join(", ")}.`);
  if (map.splitName)
    lines.push(
      `Not reading "${map.splitName.header}" as the name: beside "${map.splitName.partner}" it holds half of it (the halves are not joined; --column name=${shellHeader(map.splitName.header)} reads it anyway).`,
    );
  if (map.ignored.length)
    lines.push(
      `Ignoring ${map.ignored.length} column${map.ignored.length === 1 ? "" : "s"} not used by ${what}: ${map.ignored.join(", ")}.`,
    );
  for (const s of map.suggestions) lines.push(`  Did you mean --column ${s.field}=${shellHeader(s.header)}?`);
  return lines;
}
