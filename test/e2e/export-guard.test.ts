// The export file and the cursor against operators' mistakes, through the built CLI without a
// terminal: a file re-saved, edited, shortened, replaced or given another --format is refused (exit 2)
// with the file byte-identical and the cursor unchanged, and the two ways on work without losing or
// doubling a row; a cursor continues when a job moves between env variables and a profile; a file
// another cursor, nobody, or another organization wrote is refused; the output file is locked (two
// cursors into one file: exit 9) and so is `cursors reset` while its export runs (exit 9).
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { feedIds } from "../export/arrange.js";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { BIN, cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The ids in an export file (CSV, or NDJSON for *.ndjson). */
function idsIn(
  path: string | Buffer,
  ndjson = typeof path === "string" && path.endsWith(".ndjson"),
): string[] {
  const bytes = typeof path === "string" ? readFileSync(path) : path;
  if (ndjson)
    return bytes
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).id);
  return (parse(bytes, { columns: true }) as Record<string, string>[]).map((r) => r.id!);
}

function expectOnce(ids: string[], all: string[]) {
  expect(ids.length).toBe(new Set(ids).size);
  expect(new Set(ids)).toEqual(new Set(all));
}

const s = useSandbox();
let campaignId: string;
let seed = 500;
beforeAll(async () => {
  campaignId = (await makeCampaign(s.sb, FEED)).id;
  await simulate(s.sb, { campaign: campaignId, claims: 1300, redemptions: 1200, seed: 41 });
}, 120_000);

const envFor = (configDir: string, key = s.writeKey) => ({
  PARTNER_CLI_CONFIG_DIR: configDir,
  PARTNER_BASE_URL: s.url,
  PARTNER_API_KEY: key,
});
const more = (n: number) =>
  simulate(s.sb, { campaign: campaignId, claims: n + 10, redemptions: n, seed: seed++ });
const exportTo = (env: NodeJS.ProcessEnv, out: string, ...args: string[]) =>
  cli(["redemptions", "export", "--out", out, "--limit", "400", ...args], { env });
const cursorOf = async (env: NodeJS.ProcessEnv, name = "default") => {
  const r = await cli(["cursors", "show", name, "--json"], { env });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
};

describe("an export file that is not what its cursor committed is refused, untouched", () => {
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  const cases: {
    name: string;
    mutate: (out: string, committed: Buffer) => void;
    message: RegExp;
    args?: string[];
  }[] = [
    {
      name: "re-saved with CRLF line ends",
      mutate: (out, c) => writeFileSync(out, c.toString("utf8").replace(/\n/g, "\r\n")),
      message: /: it has CRLF line ends now\./,
    },
    {
      name: "a byte-order mark prepended",
      mutate: (out, c) => writeFileSync(out, Buffer.concat([BOM, c])),
      message: /: it starts with a byte-order mark now\./,
    },
    {
      name: "a line appended by hand",
      mutate: (out) => appendFileSync(out, "checked by ops,,,\n"),
      message:
        /: it is 18 bytes longer than this cursor left it and the extra bytes were not written by partner-cli\./,
    },
    {
      name: "shortened by three rows",
      mutate: (out, c) => {
        const lines = c.toString("utf8").split("\n");
        writeFileSync(out, `${lines.slice(0, -4).join("\n")}\n`);
      },
      message: /: it is [\d,]+ bytes shorter than this cursor left it\./,
    },
    {
      name: "replaced by another file",
      mutate: (out, c) => {
        const other = `${out}.new`;
        // Same length, one identifier changed: only the content and the file's identity differ.
        const text = c.toString("utf8");
        const at = text.indexOf("\n") + 1;
        writeFileSync(other, `${text.slice(0, at)}${text[at] === "a" ? "b" : "a"}${text.slice(at + 1)}`);
        renameSync(other, out);
      },
      message: /: it was replaced \(a different file has this name now\)\./,
    },
    {
      name: "another --format",
      mutate: () => {},
      args: ["--format", "ndjson"],
      message:
        /: it holds CSV written by cursor "default", and --format ndjson would mix NDJSON rows into it\./,
    },
    {
      name: "deleted while its cursor exists",
      mutate: (out) => rmSync(out),
      message: /: it no longer exists, though this cursor committed [\d,]+ bytes to it\./,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: exit 2, byte-identical, cursor unchanged; --out NEW continues, --from-start --out NEW2 writes everything`, async () => {
      const configDir = tempDir();
      const dir = tempDir();
      const out = join(dir, "redemptions.csv");
      const env = envFor(configDir);
      const first = await exportTo(env, out);
      expect(first.exitCode, first.stderr).toBe(0);
      const committed = readFileSync(out);
      await more(25);
      const cursor = await cursorOf(env);

      c.mutate(out, committed);
      const mutated = existsSync(out) ? readFileSync(out) : null;
      const r = await exportTo(env, out, ...(c.args ?? []));
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`Error: Refusing to append to ${out}`);
      expect(r.stderr).toMatch(c.message);
      expect(r.stderr).toContain('Nothing was written and cursor "default" is unchanged.');
      expect(r.stderr).toContain("--out NEW_FILE");
      expect(r.stderr).toContain("--from-start --out NEW_FILE");
      if (mutated) expect(readFileSync(out).equals(mutated)).toBe(true);
      else expect(existsSync(out)).toBe(false);
      expect(await cursorOf(env)).toBe(cursor);

      // Way on 1: continue where the cursor stopped, in a new file: no row lost or doubled across the two.
      const ext = c.args?.includes("ndjson") ? "ndjson" : "csv";
      const next = join(dir, `next.${ext}`);
      const cont = await exportTo(env, next, ...(c.args ?? []));
      expect(cont.exitCode, cont.stderr).toBe(0);
      expect(cont.stderr).toContain("Exported 25 new redemptions");
      expectOnce([...idsIn(committed, false), ...idsIn(next)], await feedIds(s.sb));
      // Way on 2: everything again, into another new file.
      const all = join(dir, `all.${ext}`);
      const again = await exportTo(env, all, "--from-start", ...(c.args ?? []));
      expect(again.exitCode, again.stderr).toBe(0);
      expectOnce(idsIn(all), await feedIds(s.sb));
      if (mutated) expect(readFileSync(out).equals(mutated)).toBe(true);
    }, 120_000);
  }

  it("an identical copy on a new inode is accepted (the bytes are what was committed) and continued", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const env = envFor(configDir);
    expect((await exportTo(env, out)).exitCode).toBe(0);
    const inode = statSync(out).ino;
    copyFileSync(out, `${out}.copy`);
    renameSync(`${out}.copy`, out);
    expect(statSync(out).ino).not.toBe(inode);
    await more(5);
    const r = await exportTo(env, out);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Note: ${out} is another file than the one cursor "default" last wrote to`);
    expect(r.stderr).toContain("Exported 5 new redemptions");
    expectOnce(idsIn(out), await feedIds(s.sb));
  }, 60_000);

  it("--from-start into the cursor's own non-empty file is refused (it would double every row)", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const env = envFor(configDir);
    expect((await exportTo(env, out)).exitCode).toBe(0);
    const bytes = readFileSync(out);
    const cursor = await cursorOf(env);
    const r = await exportTo(env, out, "--from-start");
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /--from-start writes every redemption again, and the file already holds the rows of cursor "default"/,
    );
    expect(readFileSync(out).equals(bytes)).toBe(true);
    expect(await cursorOf(env)).toBe(cursor);
  }, 60_000);
});

describe("whose file it is", () => {
  it("a cursor from the start never appends to a non-empty file nobody's cursor wrote", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    writeFileSync(out, "id,amount\nA-1,5\n");
    const r = await exportTo(envFor(configDir), out);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      `Refusing to append to ${out}: it is not empty and no partner-cli cursor wrote it; cursor "default" would start from the beginning and never appends to a file it did not write.`,
    );
    expect(readFileSync(out, "utf8")).toBe("id,amount\nA-1,5\n");
    const list = await cli(["cursors", "list", "--json"], { env: envFor(configDir) });
    expect(JSON.parse(list.stdout)).toEqual([]);
  }, 60_000);

  it("another cursor's file is refused, naming that cursor, its service and its organization", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const env = envFor(configDir);
    expect((await exportTo(env, out, "--cursor", "finance")).exitCode).toBe(0);
    const bytes = readFileSync(out);
    const r = await exportTo(env, out, "--cursor", "ops");
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      `it is the output of cursor "finance" of ${s.url}, organization Northwind Creators (`,
    );
    expect(readFileSync(out).equals(bytes)).toBe(true);
    expect((await cli(["cursors", "show", "ops"], { env })).exitCode).toBe(2); // never created
  }, 60_000);

  it("a file written for one organization is refused for another", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    expect((await exportTo(envFor(configDir), out)).exitCode).toBe(0);
    const bytes = readFileSync(out);
    const other = envFor(configDir, s.sb.testKeys.otherOrgKey);
    const r = await exportTo(other, out);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /it holds the redemptions of organization Northwind Creators \([0-9a-f-]+\), and this run is for .+ \([0-9a-f-]+\); one organization's rows never go into another's file\./,
    );
    expect(readFileSync(out).equals(bytes)).toBe(true);
    // The other organization's cursor was not created either.
    const list = JSON.parse((await cli(["cursors", "list", "--json"], { env: other })).stdout);
    expect(list.every((c: { organizationName: string }) => c.organizationName === "Northwind Creators")).toBe(
      true,
    );
  }, 60_000);
});

describe("a cursor belongs to the service and the organization", () => {
  it("env → profile → env on the same service and organization continues one cursor: no row doubled", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const fromEnv = envFor(configDir);
    const first = await exportTo(fromEnv, out);
    expect(first.exitCode, first.stderr).toBe(0);
    const login = await cli(["login", "--profile", "p", "--base-url", s.url, "--api-key-stdin"], {
      env: { PARTNER_CLI_CONFIG_DIR: configDir, PARTNER_API_KEY: "", PARTNER_BASE_URL: "" },
      input: `${s.writeKey}\n`,
    });
    expect(login.exitCode, login.stderr).toBe(0);
    await more(20);
    const fromProfile = {
      PARTNER_CLI_CONFIG_DIR: configDir,
      PARTNER_PROFILE: "p",
      PARTNER_API_KEY: "",
      PARTNER_BASE_URL: "",
    };
    const second = await exportTo(fromProfile, out);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).toContain("Exported 20 new redemptions");
    await more(15);
    const third = await exportTo(fromEnv, out);
    expect(third.exitCode, third.stderr).toBe(0);
    expect(third.stderr).toContain("Exported 15 new redemptions");
    expectOnce(idsIn(out), await feedIds(s.sb));
    // One cursor, shown with its service and organization name.
    const list = JSON.parse((await cli(["cursors", "list", "--json"], { env: fromProfile })).stdout);
    const main = list.filter((c: { feed: string }) => c.feed === "redemptions");
    expect(main).toHaveLength(1);
    expect(main[0]).toMatchObject({
      name: "default",
      service: s.url,
      organizationName: "Northwind Creators",
    });
    const table = await cli(["cursors", "list"], { env: fromEnv });
    expect(table.stdout.split("\n")[0]).toBe(
      "name\tfeed\tservice\torganization\trows\tatStart\tupdatedAt\tout",
    );
    expect(table.stdout).toContain(`\t${s.url}\tNorthwind Creators\t`);
  }, 120_000);

  it("a checkpoint saved by an older version is adopted once by the same target label, and continues", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const env = envFor(configDir);
    expect((await exportTo(env, out)).exitCode).toBe(0);
    const configFile = join(configDir, "config.json");
    const label = `env@${new URL(s.url).host}`;
    // Rewrite the checkpoints as the older version kept them: keyed by label, no service, no file state.
    const toOld = () => {
      const data = JSON.parse(readFileSync(configFile, "utf8"));
      const old: Record<string, unknown> = {};
      for (const v of Object.values<any>(data.cursors)) {
        const key = [label, v.organizationId, v.feed, v.name, ...(v.type ? [v.type] : [])].join("|");
        old[key] = {
          feed: v.feed,
          name: v.name,
          profile: label,
          organizationId: v.organizationId,
          type: v.type,
          cursor: v.cursor,
          skipIds: v.skipIds,
          rows: v.rows,
          out: v.out,
          committedBytes: statSync(out).size,
          updatedAt: v.updatedAt,
        };
      }
      data.cursors = old;
      writeFileSync(configFile, JSON.stringify(data));
    };
    toOld();
    await more(10);
    const r = await exportTo(env, out);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Cursor "default" was saved by an older partner-cli as "${label}"`);
    expect(r.stderr).toContain("Exported 10 new redemptions");
    expectOnce(idsIn(out), await feedIds(s.sb));
    const keys = Object.keys(JSON.parse(readFileSync(configFile, "utf8")).cursors);
    expect(keys.some((k) => k.startsWith(label))).toBe(false);
    const again = await exportTo(env, out);
    expect(again.stderr).not.toContain("older partner-cli");

    // An older checkpoint kept no intent record: a tail after it cannot be proven, so it is refused.
    toOld();
    appendFileSync(out, "half,a,row\n");
    const bytes = readFileSync(out);
    const tail = await exportTo(env, out);
    expect(tail.exitCode).toBe(2);
    expect(tail.stderr).toContain("is 11 bytes longer than this cursor left it");
    expect(tail.stderr).toContain("saved by an older partner-cli, which kept no record of its writes");
    expect(readFileSync(out).equals(bytes)).toBe(true);
  }, 120_000);
});

describe("locks", () => {
  /** Starts an export held in the middle of its run: stopped once it has written to its file. */
  async function heldExport(env: NodeJS.ProcessEnv, out: string, cursor: string) {
    await s.http("POST", "/faults", { control: true, body: { latencyMs: 50 } });
    const child = execa(
      "node",
      [BIN, "redemptions", "export", "--out", out, "--cursor", cursor, "--limit", "20"],
      {
        env: { NO_COLOR: "1", ...env },
        reject: false,
        stdin: "ignore",
      },
    );
    const deadline = Date.now() + 30_000;
    while ((!existsSync(out) || statSync(out).size === 0) && Date.now() < deadline) await sleep(10);
    child.kill("SIGSTOP");
    return {
      async finish() {
        child.kill("SIGCONT");
        await s.http("POST", "/faults", { control: true, body: { latencyMs: 0 } });
        return child;
      },
    };
  }

  it("two exports with different cursors into one file: the second exits 9 and writes nothing", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const env = envFor(configDir);
    const a = await heldExport(env, out, "a");
    try {
      const bytes = readFileSync(out);
      const b = await exportTo(env, out, "--cursor", "b");
      expect(b.exitCode, b.stderr).toBe(9);
      expect(b.stdout).toBe("");
      expect(b.stderr).toContain(`Error: The output file ${out}`);
      expect(b.stderr).toContain("Give each cursor its own --out");
      expect(readFileSync(out).equals(bytes)).toBe(true);
      expect((await cli(["cursors", "show", "b"], { env })).exitCode).toBe(2); // no cursor "b"
    } finally {
      const done = await a.finish();
      expect(done.exitCode, String(done.stderr)).toBe(0);
    }
    expectOnce(idsIn(out), await feedIds(s.sb));
  }, 120_000);

  it("cursors reset while an export of that cursor runs: exit 9, the cursor intact", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const env = envFor(configDir);
    const a = await heldExport(env, out, "default");
    let cursor: string;
    try {
      cursor = await cursorOf(env);
      const r = await cli(["cursors", "reset", "default", "--yes"], { env });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toMatch(/^Error: Not reset: Cursor "default"/);
      expect(r.stderr).toContain('Cursor "default" is unchanged.');
      expect(await cursorOf(env)).toBe(cursor);
    } finally {
      const done = await a.finish();
      expect(done.exitCode, String(done.stderr)).toBe(0);
    }
    expectOnce(idsIn(out), await feedIds(s.sb));
    const reset = await cli(["cursors", "reset", "default", "--yes"], { env });
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(reset.stderr).toContain('Reset cursor "default" (3 checkpoints)');
  }, 120_000);
});
