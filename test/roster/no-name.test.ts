// Rosters in other languages against the sandbox (issue 21 item 4): Spanish and German files as
// Excel writes them import exactly, and a roster without a name column that would create creators
// stops before anything is sent (no batch, no rejects file), naming the line, the id and the column
// to map; the same file imports when every id it holds is stored already.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RequestSpec } from "../../src/api/client.js";
import { type ImportOptions, rosterImportRun } from "../../src/commands/roster/import.js";
import { runFn } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/sandbox.js";
import { creatorCount, errorText, writeTemp, fixtureFile, useEmptyRoster } from "./harness.js";

const file = fixtureFile;

const { s } = useEmptyRoster();

/** An import, with every request its client sent ("GET /creators/es-1"; the real request is made). */
async function imp(path: string, opts: ImportOptions = {}) {
  const requests: string[] = [];
  const r = await runFn(s.sb, (ctx) => rosterImportRun({ file: path, ...opts }, ctx), {
    globals: { json: true },
    async setup(ctx) {
      const api = await ctx.api();
      const send = api.send.bind(api);
      api.send = ((spec: RequestSpec<unknown>) => {
        requests.push(`${spec.method} ${spec.path}`);
        return send(spec);
      }) as typeof api.send;
    },
  });
  return { ...r, requests };
}

/** The stored creators, as [externalId, name, email, handle, active]. */
async function stored(): Promise<unknown[][]> {
  const r = await s.http("GET", "/creators?pageSize=200");
  return (r.body.items as Record<string, unknown>[])
    .map((c) => [c.externalId, c.name, c.email, c.handle, c.active])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

async function store(creators: Record<string, unknown>[]): Promise<void> {
  const r = await s.http("POST", "/creators/batch", { body: { creators } });
  expect(r.status).toBe(200);
}

const cp1252 = { encoding: "windows-1252" };

describe("rosters in other languages", () => {
  it("Spanish Excel (Windows-1252, ;): ID;Nombre;Correo;Usuario;Estado with Activo/Inactivo and sí/no", async () => {
    const r = await imp(file("roster-es.csv"), cp1252);
    expect(r.exitCode, r.error).toBe(0);
    expect(r.json().summary).toEqual({ rows: 4, added: 4, updated: 0, unchanged: 0, rejected: 0 });
    expect(await stored()).toEqual([
      ["es-1", "José Núñez", "jose@example.es", "@josen", true],
      ["es-2", "María Pérez", "maria@example.es", null, false],
      ["es-3", "Begoña Ibáñez", null, "@begona", true],
      ["es-4", "Iñaki Muñoz", "inaki@example.es", "@inaki", false],
    ]);
    expect(r.stderr).toContain(
      'Columns: externalId from "ID", name from "Nombre", email from "Correo", handle from "Usuario", active from "Estado".',
    );
    // A name column: nothing is looked up before the batch.
    expect(r.requests).toEqual(["POST /creators/batch"]);
  });

  it("German Excel (CSV UTF-8, ;): Kennung;Vollständiger Name;E-Mail-Adresse;Benutzername;Status with aktiv/inaktiv and ja/nein", async () => {
    const r = await imp(file("roster-de.csv"));
    expect(r.exitCode, r.error).toBe(0);
    expect(await stored()).toEqual([
      ["de-1", "Jürgen Müller", "jurgen@example.de", "@jmuller", true],
      ["de-2", "Björn Weiß", "bjorn@example.de", null, false],
      ["de-3", "Zoë Größ", null, "@zoeg", true],
      ["de-4", "Ümit Özdemir", "umit@example.de", "@umit", false],
    ]);
  });
});

describe("no request that can only fail: a roster without a name column", () => {
  const path = file("roster-es-sin-nombre.csv");

  it("an empty roster: exit 2 before anything is sent, naming the line, the id and the column; no rejects file", async () => {
    const rejects = join(tempDir("pcli-no-name-"), "rejects.csv");
    const r = await imp(path, { ...cp1252, rejects });
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toBe(
      `${path} has no name column, and line 2's creator "es-1" is not in the roster (it is empty): the service requires a name for a new creator, so it would reject that row and every other new one. Nothing was sent.`,
    );
    expect((r.thrown as { hint: string }).hint).toBe(
      'If "Nombre artístico" holds the names, run again with --column name="Nombre artístico"; otherwise map the column that does with --column name="HEADER".',
    );
    expect(r.stderr).toContain('  Did you mean --column name="Nombre artístico"?');
    expect(r.requests).toEqual(["GET /creators"]);
    expect(r.stdout).toBe("");
    expect(existsSync(rejects)).toBe(false);
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("a roster holding some of the ids: the first new one in file order is named; nothing sent or changed", async () => {
    await store([
      { externalId: "es-1", name: "José Núñez" },
      { externalId: "es-2", name: "María Pérez", email: "old@example.es" },
    ]);
    const before = await stored();
    const r = await imp(path, cp1252);
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toMatch(
      /^.*roster-es-sin-nombre\.csv has no name column, and line 4's creator "es-3" is not in the roster: /,
    );
    expect(r.requests.filter((q) => q.startsWith("POST"))).toEqual([]);
    expect(r.requests).toEqual([
      "GET /creators",
      "GET /creators/es-1",
      "GET /creators/es-2",
      "GET /creators/es-3",
    ]);
    expect(await stored()).toEqual(before);
  });

  it("every id stored already: the update goes on (exit 0), names kept, saying nothing of names", async () => {
    await store([
      { externalId: "es-1", name: "José Núñez" },
      { externalId: "es-2", name: "María Pérez" },
      { externalId: "es-3", name: "Begoña Ibáñez", active: false },
    ]);
    const r = await imp(path, cp1252);
    expect(r.exitCode, r.error).toBe(0);
    expect(r.json().summary).toEqual({ rows: 3, added: 0, updated: 3, unchanged: 0, rejected: 0 });
    expect(await stored()).toEqual([
      ["es-1", "José Núñez", "jose@example.es", null, true],
      ["es-2", "María Pérez", "maria@example.es", null, false],
      ["es-3", "Begoña Ibáñez", "begona@example.es", null, true],
    ]);
    expect(r.stderr).not.toMatch(/no name column/);
    expect(r.requests.filter((q) => q.startsWith("POST"))).toEqual(["POST /creators/batch"]);
  });

  it("--column name=... maps it: the new creators are added with those names", async () => {
    const r = await imp(path, { ...cp1252, column: ["name=Nombre artístico"] });
    expect(r.exitCode, r.error).toBe(0);
    expect((await stored()).map((c) => c[1])).toEqual(["Pepe el Cocinero", "La Chef María", "Begoña Cocina"]);
  });

  it("--dry-run asks nothing: a warning naming the column, exit 0, nothing sent", async () => {
    const r = await runFn(null, (ctx) => rosterImportRun({ file: path, ...cp1252, dryRun: true }, ctx));
    expect(r.exitCode, r.error).toBe(0);
    expect(r.stderr).toContain(
      "has no name column, so it can only update creators already in the roster: the service rejects a new creator without a name. A dry run does not ask which ids exist; the import will look up the first 20 and stop before sending if one is new.",
    );
    expect(r.stderr).toContain(
      '  If "Nombre artístico" holds the names, run again with --column name="Nombre artístico";',
    );
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("the sample reads at most 10,000 records: past them, a new id is sent and rejected by the service as before", async () => {
    const bad = Array.from({ length: 20_000 }, (_, i) => `bad-${i + 1},not-an-email`);
    const r = await imp(writeTemp(`externalId,email\n${bad.join("\n")}\nlate-1,late@example.com\n`));
    expect(r.exitCode).toBe(3);
    expect(r.requests).toEqual(["POST /creators/batch"]);
    expect(r.json().summary).toEqual({ rows: 20_001, added: 0, updated: 0, unchanged: 0, rejected: 20_001 });
    expect(r.json().rejected.at(-1)).toEqual({
      line: 20_002,
      externalId: "late-1",
      reasons: ["name: is required for a new creator"],
    });
    expect(await creatorCount(s.sb)).toBe(0);
  });

  it("no column like a name, rows past the first block: the hint says how to add or map one; a file of rejected rows asks nothing", async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `nn-${i + 1},nn${i + 1}@example.com`);
    const big = writeTemp(`externalId,email\n${rows.join("\n")}\n`);
    const r = await imp(big);
    expect(r.exitCode).toBe(2);
    expect(errorText(r)).toContain(`line 2's creator "nn-1" is not in the roster (it is empty)`);
    expect((r.thrown as { hint: string }).hint).toBe(
      'Add a name column (name, "Full Name", Nombre, Nom, Name, Nome) or map the one that holds the names with --column name="HEADER".',
    );
    // Every id stored: all 3,000 rows are sent, the sampled ones included, each once.
    await store(rows.slice(0, 1000).map((_, i) => ({ externalId: `nn-${i + 1}`, name: `N ${i + 1}` })));
    await store(
      rows.slice(1000, 2000).map((_, i) => ({ externalId: `nn-${i + 1001}`, name: `N ${i + 1001}` })),
    );
    await store(rows.slice(2000).map((_, i) => ({ externalId: `nn-${i + 2001}`, name: `N ${i + 2001}` })));
    const ok = await imp(big);
    expect(ok.exitCode, ok.error).toBe(0);
    expect(ok.json().summary).toEqual({ rows: 3000, added: 0, updated: 3000, unchanged: 0, rejected: 0 });

    const bad = await imp(writeTemp("externalId,email\n,a@example.com\n\u0000x,b@example.com\n"));
    expect(bad.exitCode).toBe(3);
    expect(bad.requests).toEqual([]);
  });
});
