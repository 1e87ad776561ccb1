// Headers and active words in Spanish, French, German and Portuguese (issue 21 item 4): which
// column each field comes from, accents typed or not, the ambiguities refused, a name split in two
// columns left unread, and the active words read the same on the fast path and the checked path.
import { describe, expect, it } from "vitest";
import {
  describeMapping,
  HEADER_SYNONYMS,
  loose,
  nameLikeColumn,
  ROSTER_FIELDS,
  resembles,
} from "../../src/csv/headers.js";
import {
  checkRosterRow,
  mapColumns,
  parseActiveCell,
  parseColumnFlags,
  rosterRowJson,
} from "../../src/csv/roster.js";
import { UsageError } from "../../src/errors.js";

const map = (headers: string[], flags: string[] = []) =>
  mapColumns("f.csv", headers, parseColumnFlags(flags));

const ALL = { externalId: 0, name: 1, email: 2, handle: 3, active: 4 };

describe("headers in other languages", () => {
  it("whole rosters in Spanish, French, German and Portuguese map without flags", () => {
    const rosters = [
      ["ID", "Nombre", "Correo", "Usuario", "Estado"],
      ["ID creador", "Nombre completo", "Correo electrónico", "Nombre de usuario", "Activo"],
      ["Identifiant", "Nom complet", "Adresse e-mail", "Pseudo", "Statut"],
      ["Identifiant", "Nom", "Courriel", "Nom d'utilisateur", "Actif"],
      ["Kennung", "Name", "E-Mail-Adresse", "Benutzername", "Status"],
      ["ID", "Vollständiger Name", "E-Mail", "Benutzername", "Aktiv"],
      ["Identificador", "Nome completo", "Endereço de e-mail", "Nome de usuário", "Situação"],
      ["ID", "Nome", "E-mail", "Usuário", "Ativo"],
    ];
    for (const headers of rosters) {
      const m = map(headers);
      expect(m.index, headers.join(",")).toEqual(ALL);
      expect(m.ignored, headers.join(",")).toEqual([]);
    }
  });

  it("every header docs/roster.md lists under Rosters in other languages", () => {
    const docs: Record<string, string[]> = {
      externalId: [
        "ID creador",
        "Código creador",
        "ID créateur",
        "Creator-ID",
        "ID-Nummer",
        "Código do criador",
      ],
      name: ["Nombre y apellidos", "Prénom et nom", "Voller Name", "Nome completo"],
      email: ["Dirección de correo", "Adresse électronique", "E-Mail", "Correio eletrônico"],
      handle: ["Nutzername", "Identifiant Instagram", "Usuário", "Nome de usuário"],
      active: ["Situación", "État", "Estado", "Situação"],
    };
    for (const [field, headers] of Object.entries(docs)) {
      for (const h of headers) {
        const m = map(field === "externalId" ? [h] : ["externalId", h]);
        expect(m.index[field as keyof typeof m.index], h).toBe(field === "externalId" ? 0 : 1);
      }
    }
    for (const h of ["Código", "Code"]) expect(() => map([h, "Nombre"]), h).toThrow(/no externalId column/);
  });

  it("accents as typed or not, any case, spaces, _ - . and apostrophes", () => {
    const cases: [string, string][] = [
      ["Correo electrónico", "email"],
      ["Correo electronico", "email"],
      ["CORREO_ELECTRÓNICO", "email"],
      ["Vollstandiger Name", "name"],
      ["vollständiger-name", "name"],
      ["Nome de usuario", "handle"],
      ["nom.d’utilisateur", "handle"],
      ["ÉTAT", "active"],
      ["Situacao", "active"],
      // The decomposed spelling (e + U+0301) as macOS writes it.
      ["Correo electro\u0301nico", "email"],
    ];
    for (const [header, field] of cases) {
      const m = map(["externalId", header]);
      expect(m.index[field as keyof typeof m.index], header).toBe(1);
    }
    expect(loose("Endereço de E-Mail")).toBe("enderecodeemail");
  });

  it("no other name is under two fields, nor a field's own name", () => {
    const seen = new Map<string, string>();
    for (const f of ROSTER_FIELDS) seen.set(f.toLowerCase(), f);
    for (const f of ROSTER_FIELDS) {
      for (const n of HEADER_SYNONYMS[f]) {
        expect(seen.get(n), `${n} under ${f}`).toBeUndefined();
        expect(loose(n), n).toBe(n);
        seen.set(n, f);
      }
    }
  });

  it("two columns that could be one field are refused, naming both and the flag", () => {
    expect(() => map(["ID", "Nombre", "Nom"])).toThrow(
      /f\.csv has 2 columns that could be name: "Nombre", "Nom"\./,
    );
    expect(() => map(["ID", "Correo", "Courriel"])).toThrow(UsageError);
    try {
      map(["Identificador", "ID", "Nombre"]);
      expect.unreachable();
    } catch (err) {
      expect((err as UsageError).message).toBe(
        'f.csv has 2 columns that could be externalId: "Identificador", "ID".',
      );
      expect((err as UsageError).hint).toBe("Choose one with --column externalId=Identificador.");
    }
  });

  it("a column named exactly as the field wins; the other-language one is ignored with a suggestion", () => {
    const m = map(["externalId", "name", "Nombre", "email", "Correo"]);
    expect(m.index).toEqual({ externalId: 0, name: 1, email: 3 });
    expect(describeMapping(m)).toEqual([
      "Ignoring 2 columns not used by the roster: Nombre, Correo.",
      "  Did you mean --column name=Nombre?",
      "  Did you mean --column email=Correo?",
    ]);
  });

  it('"Nombre de usuario" is a handle, not a name; a longer header holding it is suggested as a handle', () => {
    const m = map(["ID", "Nombre de usuario", "Nom"]);
    expect(m.index).toEqual({ externalId: 0, name: 2, handle: 1 });
    expect(resembles("Nombre de usuario TikTok", ["externalId", "name", "handle"])).toBe("handle");
    expect(resembles("Nombre artístico", ["externalId", "name", "email", "handle", "active"])).toBe("name");
  });

  it("a name split in two columns is not read as the name (Nom beside Prénom, Name beside Vorname)", () => {
    for (const [half, other] of [
      ["Nom", "Prénom"],
      ["Name", "Vorname"],
      ["Nombre", "Apellidos"],
      ["Nome", "Sobrenome"],
      ["Full Name", "Last Name"],
    ] as const) {
      const m = map(["ID", half, other, "Correo"]);
      expect(m.index, half).toEqual({ externalId: 0, email: 3 });
      expect(m.splitName, half).toEqual({ header: half, partner: other });
      expect(nameLikeColumn(m), half).toBe(half);
    }
    expect(describeMapping(map(["ID", "Nom", "Prénom"]))[1]).toBe(
      'Not reading "Nom" as the name: beside "Prénom" it holds half of it (the halves are not joined; --column name=Nom reads it anyway).',
    );
    // --column name=... reads it anyway.
    expect(map(["ID", "Nom", "Prénom"], ["name=Nom"]).index).toEqual({ externalId: 0, name: 1 });
  });

  it("the column that likely holds the names, for the hint when none maps", () => {
    expect(nameLikeColumn(map(["ID", "Nombre artístico", "Correo"]))).toBe("Nombre artístico");
    expect(nameLikeColumn(map(["ID", "Correo", "Creator"]))).toBeUndefined();
    expect(nameLikeColumn(map(["ID", "Nom de scène"]))).toBe("Nom de scène");
  });
});

describe("active words in other languages", () => {
  const TRUE = ["sí", "Sí", "si", "SI", "activo", "Activo", "ACTIVA", "oui", "Oui", "actif", "ja", "JA"];
  const TRUE2 = ["aktiv", "Aktiv", "sim", "SIM", "ativo", "Ativa", " sí ", "Si\u0301"];
  const FALSE = ["no", "No", "inactivo", "Inactiva", "non", "NON", "inactif", "Inactif", "nein"];
  const FALSE2 = ["Nein", "inaktiv", "não", "Não", "nao", "NÃO", "inativo", "Inativa", "Na\u0303o"];

  it("read as true or false, any case, accents as typed or not", () => {
    for (const v of [...TRUE, ...TRUE2]) expect(parseActiveCell(v), v).toBe(true);
    for (const v of [...FALSE, ...FALSE2]) expect(parseActiveCell(v), v).toBe(false);
    for (const v of ["peut-être", "vielleicht", "talvez", "quizás", "ñ", "n\u0303", "ÿ"])
      expect(parseActiveCell(v), v).toBeUndefined();
  });

  it("the fast path and the checked path give the same item for every word", () => {
    const m = map(["ID", "Nombre", "Estado"]);
    for (const v of [...TRUE, ...TRUE2, ...FALSE, ...FALSE2, "talvez"]) {
      const cells = ["es-1", "Ana", v];
      const checked = checkRosterRow(cells, m, { clearEmpty: false });
      const out: string[] = [];
      const fast = rosterRowJson(cells, m, false, out);
      if (checked.item) {
        expect(checked.item.active, v).toBe(parseActiveCell(v));
        if (fast !== undefined) expect(out.join(""), v).toBe(JSON.stringify(checked.item));
      } else {
        expect(fast, v).toBeUndefined();
        expect(checked.reasons, v).toEqual([
          `active: must be true/false, yes/no, y/n, 1/0, active/inactive, enabled/disabled, or yes/no or active/inactive in Spanish, French, German or Portuguese (found "${v}")`,
        ]);
      }
    }
    // The plain words go the fast way.
    const out: string[] = [];
    expect(rosterRowJson(["es-1", "Ana", "Inactivo"], m, false, out)).toBe("es-1");
    expect(out.join("")).toBe('{"externalId":"es-1","name":"Ana","active":false}');
  });
});
