// End to end: files holding private data are created 0600 whatever the umask, and the Excel options
// (--bom, --format xlsx) of the built CLI. Each run goes through `bash -c 'umask 000; exec node ...'`
// with explicit credentials for a sandbox on port 0 and a private config dir.
import { readFileSync, statSync, writeFileSync, chmodSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeCampaign, simulate } from "../export/arrange.js";
import { BIN, type CliResult } from "../helpers/cli.js";
import { http, type RunningSandbox, sandbox, tempDir } from "../helpers/sandbox.js";

let sb: RunningSandbox;
const CAMPAIGN = "modes-camp";
beforeAll(async () => {
  sb = await sandbox();
  const r = await http(sb, "POST", "/creators/batch", {
    body: {
      creators: [
        { externalId: "0012345", name: "Chloé Dupont", email: "chloe@example.com" },
        { externalId: "0000042", name: "Zoë Müller", email: "zoe@example.com" },
      ],
    },
  });
  if (r.status !== 200) throw new Error(`batch: ${r.status}`);
  const id = await activeCampaign(sb, CAMPAIGN);
  await simulate(sb, { campaign: id, views: 20, claims: 10, redemptions: 5, seed: 7 });
  // Joined after the roster got its links: each assign test gives one of them a link.
  const late = await http(sb, "POST", "/creators/batch", {
    body: { creators: [1, 2].map((i) => ({ externalId: `late-${i}`, name: `Late ${i}` })) },
  });
  if (late.status !== 200) throw new Error(`batch: ${late.status}`);
});
afterAll(async () => {
  await sb.close();
});

/** The built CLI under `umask 000`, without a terminal. */
async function umask000(args: string[], dir: string): Promise<CliResult> {
  const r = await execa("bash", ["-c", 'umask 000; exec node "$0" "$@"', BIN, ...args], {
    reject: false,
    cwd: dir,
    stdin: "ignore",
    timeout: 60_000,
    env: {
      NO_COLOR: "1",
      PARTNER_RETRY_BASE_MS: "20",
      PARTNER_BASE_URL: sb.url,
      PARTNER_API_KEY: sb.writeKey,
      PARTNER_CLI_CONFIG_DIR: tempDir(),
    },
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const mode = (path: string) => statSync(path).mode & 0o777;

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
