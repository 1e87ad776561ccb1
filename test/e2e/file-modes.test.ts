// End to end: files holding private data are created 0600 whatever the umask, and the Excel options
// (--bom, --format xlsx) of the built CLI. Each run goes through `bash -c 'umask 000; exec node ...'`
// with explicit credentials for a sandbox on port 0 and a private config dir.
import { readFileSync, statSync, writeFileSync, chmodSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { BIN } from "../helpers/cli.js";
import { type RunResult, runResult } from "../helpers/result.js";
import { http, tempDir } from "../helpers/sandbox.js";
import { useSandbox, withSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const box = useSandbox();
const CAMPAIGN = "modes-camp";
beforeAll(async () => {
  const r = await box.http("POST", "/creators/batch", {
    body: {
      creators: [
        { externalId: "0012345", name: "Chloé Dupont", email: "chloe@example.com" },
        { externalId: "0000042", name: "Zoë Müller", email: "zoe@example.com" },
      ],
    },
  });
  if (r.status !== 200) throw new Error(`batch: ${r.status}`);
  const id = (await makeCampaign(box.sb, { ...FEED, externalReference: CAMPAIGN })).id;
  await simulate(box.sb, { campaign: id, views: 20, claims: 10, redemptions: 5, seed: 7 });
  // Joined after the roster got its links: each assign test gives one of them a link.
  const late = await box.http("POST", "/creators/batch", {
    body: { creators: [1, 2].map((i) => ({ externalId: `late-${i}`, name: `Late ${i}` })) },
  });
  if (late.status !== 200) throw new Error(`batch: ${late.status}`);
});

/** The built CLI under `umask 000`, without a terminal. */
async function umask000(args: string[], dir: string, configDir = tempDir()): Promise<RunResult> {
  const r = await execa("bash", ["-c", 'umask 000; exec node "$0" "$@"', BIN, ...args], {
    reject: false,
    cwd: dir,
    stdin: "ignore",
    timeout: 60_000,
    env: {
      NO_COLOR: "1",
      PARTNER_RETRY_BASE_MS: "20",
      PARTNER_BASE_URL: box.url,
      PARTNER_API_KEY: box.writeKey,
      PARTNER_CLI_CONFIG_DIR: configDir,
    },
  });
  return runResult({ exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) });
}

const mode = (path: string) => statSync(path).mode & 0o777;

/** The saved checkpoints and config of a config dir, as bytes: what must not change on a refusal. */
const cursorState = (config: string) =>
  [
    "config.json",
    ...(existsSync(join(config, "cursors"))
      ? readdirSync(join(config, "cursors")).map((f) => join("cursors", f))
      : []),
  ]
    .filter((f) => existsSync(join(config, f)))
    .map((f) => `${f}\n${readFileSync(join(config, f), "utf8")}`)
    .join("\n");

describe("private files are created 0600 under umask 000", () => {
  it("roster export (emails), CSV and xlsx", async () => {
    const dir = tempDir();
    const csv = await umask000(["roster", "export", "--out", "roster.csv"], dir);
    expect(csv.exitCode).toBe(0);
    expect(mode(join(dir, "roster.csv"))).toBe(0o600);
    const xlsx = await umask000(["roster", "export", "--out", "roster.xlsx"], dir);
    expect(xlsx.exitCode).toBe(0);
    expect(mode(join(dir, "roster.xlsx"))).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(["roster.csv", "roster.xlsx"]);
  });

  it("links export (private stats URLs)", async () => {
    const dir = tempDir();
    const r = await umask000(["links", "export", CAMPAIGN, "--out", "links.csv"], dir);
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(dir, "links.csv"), "utf8")).toMatch(/statsUrl/);
    expect(mode(join(dir, "links.csv"))).toBe(0o600);
  });

  it("reports creators --out", async () => {
    const dir = tempDir();
    const r = await umask000(
      ["reports", "creators", "--from", "2025-01-01", "--through", "2027-12-31", "--out", "payouts.csv"],
      dir,
    );
    expect(r.exitCode).toBe(0);
    expect(mode(join(dir, "payouts.csv"))).toBe(0o600);
  });

  it("links assign --unassignable (exit 3, the file written 0600)", async () => {
    const dir = tempDir();
    const r = await umask000(
      ["links", "assign", CAMPAIGN, "late-1", "ghost-1", "--unassignable", "left.csv", "--timeout", "60s"],
      dir,
    );
    expect(r.exitCode).toBe(3);
    expect(readFileSync(join(dir, "left.csv"), "utf8")).toBe("externalId,reason\nghost-1,not_on_roster\n");
    expect(mode(join(dir, "left.csv"))).toBe(0o600);
  });

  it("roster import --rejects (exit 3, the file written 0600)", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "in.csv"), "externalId,name,email\nm-1,Ann,ann@example.com\nm-2,Bob,bad\n");
    const r = await umask000(["roster", "import", "in.csv", "--rejects", "rejects.csv"], dir);
    expect(r.exitCode).toBe(3);
    expect(readFileSync(join(dir, "rejects.csv"), "utf8")).toMatch(/m-2/);
    expect(mode(join(dir, "rejects.csv"))).toBe(0o600);
  });

  it("a file that already exists keeps its mode", async () => {
    const dir = tempDir();
    const path = join(dir, "roster.csv");
    writeFileSync(path, "old\n");
    chmodSync(path, 0o640);
    const r = await umask000(["roster", "export", "--out", "roster.csv"], dir);
    expect(r.exitCode).toBe(0);
    expect(readFileSync(path, "utf8")).toMatch(/^externalId,name,email,handle,active\n/);
    expect(mode(path)).toBe(0o640);
  });
});

describe("files Excel opens right", () => {
  it("--bom: EF BB BF, then exactly the CSV without it (roster export and --unassignable)", async () => {
    const dir = tempDir();
    expect((await umask000(["roster", "export", "--out", "plain.csv"], dir)).exitCode).toBe(0);
    expect((await umask000(["roster", "export", "--out", "bom.csv", "--bom"], dir)).exitCode).toBe(0);
    const plain = readFileSync(join(dir, "plain.csv"));
    const bom = readFileSync(join(dir, "bom.csv"));
    expect([...bom.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bom.subarray(3).equals(plain)).toBe(true);
    expect(plain.toString("utf8")).toContain("0012345,Chloé Dupont,chloe@example.com");

    const left = await umask000(
      [
        "links",
        "assign",
        CAMPAIGN,
        "late-2",
        "ghost-2",
        "--unassignable",
        "left.csv",
        "--bom",
        "--timeout",
        "60s",
      ],
      dir,
    );
    expect(left.exitCode).toBe(3);
    expect(readFileSync(join(dir, "left.csv"), "utf8")).toBe(
      "\ufeffexternalId,reason\nghost-2,not_on_roster\n",
    );
  });

  it("roster export to xlsx: identifiers keep their leading zeros as text, names their accents", async () => {
    const dir = tempDir();
    const r = await umask000(["roster", "export", "--out", "roster.xlsx"], dir);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("");
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(join(dir, "roster.xlsx"));
    const ws = wb.worksheets[0]!;
    expect(ws.name).toBe("Roster");
    expect((ws.getRow(1).values as unknown[]).slice(1)).toEqual([
      "externalId",
      "name",
      "email",
      "handle",
      "active",
    ]);
    const rows: unknown[][] = [];
    ws.eachRow((row, n) => {
      if (n > 1) rows.push((row.values as unknown[]).slice(1));
    });
    const chloe = rows.find((x) => x[0] === "0012345");
    expect(chloe).toEqual(["0012345", "Chloé Dupont", "chloe@example.com", undefined, true]);
    expect(rows.find((x) => x[0] === "0000042")?.[1]).toBe("Zoë Müller");
  });

  it("reports creators --format xlsx: counts and money are numbers", async () => {
    const dir = tempDir();
    const r = await umask000(
      [
        "reports",
        "creators",
        "--from",
        "2025-01-01",
        "--through",
        "2027-12-31",
        "--out",
        "c",
        "--format",
        "xlsx",
      ],
      dir,
    );
    expect(r.exitCode).toBe(0);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(join(dir, "c"));
    const ws = wb.worksheets[0]!;
    const header = (ws.getRow(1).values as unknown[]).slice(1);
    let redemptions = 0;
    ws.eachRow((row, n) => {
      if (n === 1) return;
      const v = row.getCell(header.indexOf("verifiedRedemptions") + 1).value;
      expect(typeof v).toBe("number");
      expect(typeof row.getCell(header.indexOf("estimatedUnitSalePrice") + 1).value).toBe("number");
      redemptions += v as number;
    });
    expect(redemptions).toBe(5);
  });

  it("mistakes are refused before any request, nothing written (exit 2)", async () => {
    const dir = tempDir();
    const cases: [string[], RegExp][] = [
      [["roster", "export", "--format", "xlsx"], /--format xlsx writes a workbook file, not stdout/],
      [
        ["roster", "export", "--out", "r.xlsx", "--format", "csv"],
        /Excel refuses to open a CSV file named \.xlsx/,
      ],
      [["links", "export", CAMPAIGN, "--out", "l.csv", "--format", "xlsx"], /a workbook named \.csv/],
      [["roster", "export", "--out", "r.xlsx", "--bom"], /--bom is for CSV/],
      [["roster", "export", "--format", "pdf"], /--format must be csv or xlsx, not "pdf"/],
      [["links", "assign", CAMPAIGN, "ghost-3", "--bom"], /--bom applies to the --unassignable file/],
    ];
    for (const [args, message] of cases) {
      const r = await umask000(args, dir);
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe("");
    }
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(dir, "r.xlsx"))).toBe(false);
  });
});

describe("redemptions export: file mode, --bom and workbooks", () => {
  it("the export file is created 0600 under umask 000; an existing file keeps its mode", async () => {
    const dir = tempDir();
    const r = await umask000(["redemptions", "export", "--out", "red.csv"], dir);
    expect(r.exitCode).toBe(0);
    expect(mode(join(dir, "red.csv"))).toBe(0o600);
    writeFileSync(join(dir, "shared.csv"), "");
    chmodSync(join(dir, "shared.csv"), 0o640);
    const s = await umask000(["redemptions", "export", "--out", "shared.csv", "--cursor", "two"], dir);
    expect(s.exitCode).toBe(0);
    expect(mode(join(dir, "shared.csv"))).toBe(0o640);
  });

  it("--bom: a new file starts with the BOM, later runs append after it; --bom onto a file without one is exit 2, nothing touched", async () => {
    const dir = tempDir();
    const config = tempDir();
    const first = await umask000(["redemptions", "export", "--out", "bom.csv", "--bom"], dir, config);
    expect(first.exitCode).toBe(0);
    const bytes = readFileSync(join(dir, "bom.csv"));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString("utf8")).toMatch(/^id,serializedGs1,redeemedAt,/);
    expect(bytes.toString("utf8").split("\n").filter(Boolean)).toHaveLength(6);
    const again = await umask000(["redemptions", "export", "--out", "bom.csv", "--bom"], dir, config);
    expect(again.exitCode).toBe(0);
    expect(readFileSync(join(dir, "bom.csv")).equals(bytes)).toBe(true);

    const plain = await umask000(
      ["redemptions", "export", "--out", "plain.csv", "--cursor", "p"],
      dir,
      config,
    );
    expect(plain.exitCode).toBe(0);
    const before = readFileSync(join(dir, "plain.csv"));
    const configBefore = cursorState(config);
    const refused = await umask000(
      ["redemptions", "export", "--out", "plain.csv", "--cursor", "p", "--bom"],
      dir,
      config,
    );
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/plain\.csv already has content without a BOM/);
    expect(refused.stderr).toMatch(/Drop --bom/);
    expect(readFileSync(join(dir, "plain.csv")).equals(before)).toBe(true);
    expect(cursorState(config)).toBe(configBefore);
  });

  it("--format xlsx: a complete new workbook per run (ids text, times dates), 0600; onto an existing file exit 2, bytes and cursor unchanged", async () => {
    const dir = tempDir();
    const config = tempDir();
    const first = await umask000(
      ["redemptions", "export", "--out", "day1.xlsx", "--cursor", "book", "--json"],
      dir,
      config,
    );
    expect(first.exitCode).toBe(0);
    expect(JSON.parse(first.stdout).summary.rows).toBe(5);
    const path = join(dir, "day1.xlsx");
    expect(mode(path)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["day1.xlsx"]);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(path);
    const ws = wb.worksheets[0]!;
    expect(ws.name).toBe("Redemptions");
    expect(ws.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    const header = (ws.getRow(1).values as unknown[]).slice(1) as string[];
    const feed = await box.http("GET", "/redemptions?limit=1000");
    const first5 = feed.body.items as { id: string; serializedGs1: string; redeemedAt: string }[];
    for (let n = 2; n <= 6; n++) {
      const row = ws.getRow(n);
      const cell = (name: string) => row.getCell(header.indexOf(name) + 1);
      const api = first5.find((x) => x.id === cell("id").value)!;
      expect(cell("serializedGs1").value).toBe(api.serializedGs1);
      expect(cell("serializedGs1").type).toBe(ExcelJS.ValueType.String);
      expect(cell("baseGs1").value).toBe(SEED.offers.oatsUnknownSupply);
      expect(cell("redeemedAt").type).toBe(ExcelJS.ValueType.Date);
      expect((cell("redeemedAt").value as Date).getTime()).toBe(Date.parse(api.redeemedAt));
    }

    // The same name again: refused before any request, the workbook and the cursor as they were.
    const bytes = readFileSync(path);
    const configBefore = cursorState(config);
    const again = await umask000(
      ["redemptions", "export", "--out", "day1.xlsx", "--cursor", "book"],
      dir,
      config,
    );
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/day1\.xlsx already exists; a workbook is never appended to or replaced/);
    expect(again.stderr).toMatch(/--out redemptions-\$\(date \+%F\)\.xlsx/);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(cursorState(config)).toBe(configBefore);

    // A new name: only what is new since the first workbook (nothing), as a header-only workbook.
    const next = await umask000(
      ["redemptions", "export", "--out", "day2.xlsx", "--cursor", "book", "--json"],
      dir,
      config,
    );
    expect(next.exitCode).toBe(0);
    expect(JSON.parse(next.stdout).summary.rows).toBe(0);
    const wb2 = new ExcelJS.Workbook();
    await wb2.xlsx.readFile(join(dir, "day2.xlsx"));
    expect(wb2.worksheets[0]!.rowCount).toBe(1);
  });

  it("--format xlsx to stdout, --bom with xlsx or ndjson: exit 2, nothing written", async () => {
    const dir = tempDir();
    for (const [args, message] of [
      [["redemptions", "export", "--format", "xlsx"], /not stdout/],
      [["redemptions", "export", "--out", "r.xlsx", "--bom"], /--bom is for CSV/],
      [["redemptions", "export", "--out", "r.ndjson", "--format", "ndjson", "--bom"], /--bom is for CSV/],
      [["redemptions", "export", "--out", "r.xlsx", "--format", "ndjson"], /named \.xlsx/],
    ] as [string[], RegExp][]) {
      const r = await umask000(args, dir);
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("--format xlsx: a run that fails after writing rows leaves no workbook and does not move the cursor", async () => {
    await withSandbox({}, async ({ sb: own }) => {
      const id = (await makeCampaign(own, { ...FEED, externalReference: "fail-camp" })).id;
      await simulate(own, { campaign: id, views: 10, claims: 6, redemptions: 4, seed: 9 });
      const dir = tempDir();
      const config = tempDir();
      const run = (args: string[]) =>
        execa("node", [BIN, "redemptions", "export", ...args], {
          reject: false,
          cwd: dir,
          stdin: "ignore",
          env: {
            NO_COLOR: "1",
            PARTNER_RETRY_BASE_MS: "20",
            PARTNER_BASE_URL: own.url,
            PARTNER_API_KEY: own.writeKey,
            PARTNER_CLI_CONFIG_DIR: config,
          },
        });
      // The feed's rows go into the workbook, then the corrections' event reads keep failing.
      await http(own, "POST", "/faults", {
        control: true,
        body: { rates: { 502: 1 }, pathPrefix: "/events" },
      });
      const failed = await run(["--out", "day.xlsx", "--corrections", "--page-size", "2"]);
      expect(failed.exitCode).toBe(7);
      expect(readdirSync(dir)).toEqual([]);
      await http(own, "POST", "/faults", { control: true, body: { rates: {}, pathPrefix: null } });
      const ok = await run(["--out", "day.xlsx", "--corrections", "--json"]);
      expect(ok.exitCode).toBe(0);
      expect(JSON.parse(String(ok.stdout)).summary.rows).toBe(4);
      expect(readdirSync(dir)).toEqual(["day.xlsx"]);
    });
  });
});
