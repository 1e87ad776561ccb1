// The export file and its cursor against operators' mistakes, through the built CLI without a
// terminal: a file re-saved, edited, shortened, replaced or given another --format is refused (exit 2)
// with the file byte-identical and the cursor unchanged, and the two ways on (--continue-from into a
// new file, or a new file from the start) work without losing or doubling a row; each file keeps its
// own cursor, so a quick export to stdout or to another file never moves the cron file's; a cursor
// continues when a job moves between env variables and a profile or another spelling of the base
// URL; a file nobody's cursor or another organization wrote is refused; cursors older versions kept
// in config.json are converted once; the output file is locked beside it (two config dirs into one
// file: exit 9) and so is `cursors reset` while its export runs (exit 9).
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  readdirSync,
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
import { until } from "../helpers/wait.js";

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
  cli(["redemptions", "export", "--out", out, "--page-size", "400", ...args], { env });
const cursorOf = async (env: NodeJS.ProcessEnv, target: string) => {
  const r = await cli(["cursors", "show", target, "--json"], { env });
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
      message: /: it holds CSV and --format ndjson would mix NDJSON rows into it\./,
    },
    {
      name: "deleted while its cursor exists",
      mutate: (out) => rmSync(out),
      message: /: it no longer exists, though this cursor committed [\d,]+ bytes to it\./,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: exit 2, byte-identical, cursor unchanged; --continue-from into NEW continues, a new NEW2 writes everything`, async () => {
      const configDir = tempDir();
      const dir = tempDir();
      const out = join(dir, "redemptions.csv");
      const env = envFor(configDir);
      const first = await exportTo(env, out);
      expect(first.exitCode, first.stderr).toBe(0);
      const committed = readFileSync(out);
      await more(25);
      const cursor = await cursorOf(env, out);

      c.mutate(out, committed);
      const mutated = existsSync(out) ? readFileSync(out) : null;
      const r = await exportTo(env, out, ...(c.args ?? []));
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`Error: Refusing to append to ${out}`);
      expect(r.stderr).toMatch(c.message);
      expect(r.stderr).toContain(`Nothing was written and the cursor of ${out} is unchanged.`);
      expect(r.stderr).toContain(`--out NEW_FILE --continue-from ${out}`);
      if (mutated) expect(readFileSync(out).equals(mutated)).toBe(true);
      else expect(existsSync(out)).toBe(false);
      expect(await cursorOf(env, out)).toBe(cursor);

      // Way on 1: continue where the cursor stopped, in a new file: no row lost or doubled across the two.
      const ext = c.args?.includes("ndjson") ? "ndjson" : "csv";
      const next = join(dir, `next.${ext}`);
      const cont = await exportTo(env, next, "--continue-from", out, ...(c.args ?? []));
      expect(cont.exitCode, cont.stderr).toBe(0);
      expect(cont.stderr).toContain(`The cursor of ${out} continues in ${next}`);
      expect(cont.stderr).toContain("Exported 25 new redemptions");
      expectOnce([...idsIn(committed, false), ...idsIn(next)], await feedIds(s.sb));
      // The old file's cursor is closed: nothing is appended to it any more.
      if (mutated) {
        const closed = await exportTo(env, out, ...(c.args ?? []));
        expect(closed.exitCode).toBe(2);
        expect(closed.stderr).toContain(`its cursor was continued in ${next}`);
      }
      // Way on 2: everything again, into another new file (a new file's cursor starts at the beginning).
      const all = join(dir, `all.${ext}`);
      const again = await exportTo(env, all, ...(c.args ?? []));
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
    expect(r.stderr).toContain(`Note: ${out} is another file than the one its cursor last wrote to`);
    expect(r.stderr).toContain("Exported 5 new redemptions");
    expectOnce(idsIn(out), await feedIds(s.sb));
  }, 60_000);

  it("--from-start into the cursor's own non-empty file is refused (it would double every row)", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const env = envFor(configDir);
    expect((await exportTo(env, out)).exitCode).toBe(0);
    const bytes = readFileSync(out);
    const cursor = await cursorOf(env, out);
    const r = await exportTo(env, out, "--from-start");
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      `--from-start writes every redemption again, and the file already holds the rows of the export cursor of ${out}`,
    );
    expect(readFileSync(out).equals(bytes)).toBe(true);
    expect(await cursorOf(env, out)).toBe(cursor);
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
      `Refusing to append to ${out}: it is not empty and no partner-cli cursor of this config directory wrote it; a new file's cursor starts from the beginning and never appends to a file it did not write.`,
    );
    expect(readFileSync(out, "utf8")).toBe("id,amount\nA-1,5\n");
    const list = await cli(["cursors", "list", "--json"], { env: envFor(configDir) });
    expect(JSON.parse(list.stdout)).toEqual([]);
  }, 60_000);

  it("a quick export to stdout and to a scratch file between two cron runs: the cron file gets every id once", async () => {
    const configDir = tempDir();
    const dir = tempDir();
    const cron = join(dir, "cron.csv");
    const env = envFor(configDir);
    expect((await exportTo(env, cron)).exitCode).toBe(0);
    await more(30);
    // The README's line without --out: no cursor is read or saved.
    const quick = await cli(["redemptions", "export", "--page-size", "400"], { env });
    expect(quick.exitCode, quick.stderr).toBe(0);
    expect(quick.stderr).toContain("no cursor saved");
    expectOnce(idsIn(Buffer.from(quick.stdout), false), await feedIds(s.sb));
    // A scratch file "to see the format": its own cursor, from the beginning.
    const scratch = join(dir, "test.csv");
    const look = await exportTo(env, scratch, "--cursor", "default");
    expect(look.exitCode, look.stderr).toBe(0);
    expectOnce(idsIn(scratch), await feedIds(s.sb));
    const next = await exportTo(env, cron);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stderr).toContain("Exported 30 new redemptions");
    expectOnce(idsIn(cron), await feedIds(s.sb));
    const list = JSON.parse((await cli(["cursors", "list", "--json"], { env })).stdout);
    expect(
      list
        .filter((c: { feed: string }) => c.feed === "redemptions")
        .map((c: { out: string }) => c.out)
        .sort(),
    ).toEqual([cron, scratch].sort());
  }, 120_000);

  it("a named cursor for stdout continues across runs; stdout without one after an older version's stdout cursor is refused", async () => {
    const configDir = tempDir();
    const env = envFor(configDir);
    const first = await cli(["redemptions", "export", "--cursor", "pipe", "--page-size", "400"], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain('cursor "pipe" saved');
    await more(7);
    const second = await cli(["redemptions", "export", "--cursor", "pipe", "--page-size", "400"], { env });
    expect(second.exitCode, second.stderr).toBe(0);
    expectOnce(
      [...idsIn(Buffer.from(first.stdout), false), ...idsIn(Buffer.from(second.stdout), false)],
      await feedIds(s.sb),
    );
    // An older version kept cursor "default" for `export >> file` in config.json.
    const configFile = join(configDir, "config.json");
    const data = existsSync(configFile)
      ? JSON.parse(readFileSync(configFile, "utf8"))
      : { profiles: {}, jobs: {} };
    const shown = JSON.parse(await cursorOf(env, "pipe")).find(
      (c: { feed: string }) => c.feed === "redemptions",
    );
    data.cursors = {
      [`${s.url}|${shown.organizationId}|redemptions|default`]: {
        ...shown,
        name: "default",
        service: s.url,
        out: null,
      },
    };
    writeFileSync(configFile, JSON.stringify(data));
    const refused = await cli(["redemptions", "export", "--page-size", "400"], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("add --cursor default");
    const kept = await cli(["redemptions", "export", "--cursor", "default", "--page-size", "400"], { env });
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.stderr).toContain("Exported 0 new redemptions");
  }, 120_000);

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

describe("a cursor belongs to the organization and its file", () => {
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
      out,
      service: s.url,
      organizationName: "Northwind Creators",
    });
    expect(main[0].via).toMatch(/^PARTNER_API_KEY/);
    const table = await cli(["cursors", "list"], { env: fromEnv });
    expect(table.stdout.split("\n")[0]).toBe(
      "destination\tfeed\torganization\tservice\tvia\trows\tatStart\tupdatedAt\tstate",
    );
    expect(table.stdout).toContain(`${out}\tredemptions\tNorthwind Creators\t${s.url}\t`);
    // Another spelling of the same service (a DNS alias, a host rename): the same cursor, no row doubled.
    await more(9);
    const alias = await exportTo(
      { ...fromEnv, PARTNER_BASE_URL: s.url.replace("127.0.0.1", "localhost") },
      out,
    );
    expect(alias.exitCode, alias.stderr).toBe(0);
    expect(alias.stderr).toContain("Exported 9 new redemptions");
    expectOnce(idsIn(out), await feedIds(s.sb));
  }, 120_000);

  it("an export leaves config.json (profiles and keys) byte-identical: checkpoints are saved in their own file", async () => {
    const configDir = tempDir();
    const login = await cli(["login", "--profile", "p", "--base-url", s.url, "--api-key-stdin"], {
      env: { PARTNER_CLI_CONFIG_DIR: configDir, PARTNER_API_KEY: "", PARTNER_BASE_URL: "" },
      input: `${s.writeKey}\n`,
    });
    expect(login.exitCode, login.stderr).toBe(0);
    const configFile = join(configDir, "config.json");
    const before = readFileSync(configFile);
    const mtime = statSync(configFile).mtimeMs;
    const out = join(tempDir(), "r.csv");
    const env = {
      PARTNER_CLI_CONFIG_DIR: configDir,
      PARTNER_PROFILE: "p",
      PARTNER_API_KEY: "",
      PARTNER_BASE_URL: "",
    };
    const r = await cli(["redemptions", "export", "--out", out, "--page-size", "100", "--corrections"], {
      env,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(idsIn(out).length).toBeGreaterThan(1000);
    expect(readFileSync(configFile).equals(before)).toBe(true);
    expect(statSync(configFile).mtimeMs).toBe(mtime);
    const cursorFiles = readdirSync(join(configDir, "cursors"));
    expect(cursorFiles).toHaveLength(1);
    expect(statSync(join(configDir, "cursors", cursorFiles[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(join(configDir, "cursors")).mode & 0o777).toBe(0o700);
  }, 120_000);

  it("cursors an older version kept in config.json are converted once, each to its file, and continue", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "r.csv");
    const env = envFor(configDir);
    expect((await exportTo(env, out, "--corrections")).exitCode).toBe(0);
    const configFile = join(configDir, "config.json");
    const cursorsDir = join(configDir, "cursors");
    const label = `env@${new URL(s.url).host}`;
    // The checkpoints as older versions kept them in config.json: keyed by the service (the last
    // version) or by a target label (the one before), with no file state.
    const toOld = (byLabel: boolean) => {
      const current = JSON.parse(readFileSync(join(cursorsDir, readdirSync(cursorsDir)[0]!), "utf8")).cursors;
      const old: Record<string, unknown> = {};
      for (const v of Object.values<any>(current)) {
        const where = byLabel ? label : s.url;
        const key = [where, v.organizationId, v.feed, "default", ...(v.type ? [v.type] : [])].join("|");
        old[key] = {
          feed: v.feed,
          name: "default",
          ...(byLabel ? { profile: label } : { service: s.url }),
          organizationId: v.organizationId,
          type: v.type,
          cursor: v.cursor,
          skipIds: v.skipIds,
          rows: v.rows,
          out: v.feed === "redemptions" || !byLabel ? v.out : undefined,
          committedBytes: statSync(out).size,
          updatedAt: v.updatedAt,
        };
      }
      const data = existsSync(configFile)
        ? JSON.parse(readFileSync(configFile, "utf8"))
        : { profiles: {}, jobs: {} };
      data.cursors = old;
      writeFileSync(configFile, JSON.stringify(data));
      rmSync(cursorsDir, { recursive: true });
    };
    for (const byLabel of [false, true]) {
      toOld(byLabel);
      await more(10);
      const r = await exportTo(env, out, "--corrections");
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain("Exported 10 new redemptions");
      const rows = parse(readFileSync(out), { columns: true }) as Record<string, string>[];
      expectOnce(
        rows.filter((row) => !row.change).map((row) => row.id!),
        await feedIds(s.sb),
      );
      expect(JSON.parse(readFileSync(configFile, "utf8")).cursors).toEqual({});
      const list = JSON.parse((await cli(["cursors", "list", "--json"], { env })).stdout);
      expect(list).toHaveLength(3);
      expect(
        list.every((c: { out: string; convertedFrom?: string }) => c.out === out && c.convertedFrom),
      ).toBe(true);
    }
    // An older checkpoint kept no intent record: a tail after it cannot be proven, so it is refused.
    toOld(false);
    appendFileSync(out, "half,a,row\n");
    const bytes = readFileSync(out);
    const tail = await exportTo(env, out, "--corrections");
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
      [BIN, "redemptions", "export", "--out", out, "--cursor", cursor, "--page-size", "20"],
      {
        env: { NO_COLOR: "1", ...env },
        reject: false,
        stdin: "ignore",
      },
    );
    await until(() => existsSync(out) && statSync(out).size > 0, 30_000, "the first rows written").catch(
      () => {},
    );
    child.kill("SIGSTOP");
    return {
      async finish() {
        child.kill("SIGCONT");
        await s.http("POST", "/faults", { control: true, body: { latencyMs: 0 } });
        return child;
      },
    };
  }

  it("two exports into one file from two config dirs: the second exits 9 and writes nothing", async () => {
    const out = join(tempDir(), "r.csv");
    const env = envFor(tempDir());
    const otherEnv = envFor(tempDir());
    const a = await heldExport(env, out, "a");
    try {
      const bytes = readFileSync(out);
      const b = await exportTo(otherEnv, out);
      expect(b.exitCode, b.stderr).toBe(9);
      expect(b.stdout).toBe("");
      expect(b.stderr).toContain(`Error: The output file ${out}`);
      expect(b.stderr).toContain("from this or another config directory or host");
      expect(readFileSync(out).equals(bytes)).toBe(true);
      expect(JSON.parse((await cli(["cursors", "list", "--json"], { env: otherEnv })).stdout)).toEqual([]);
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
      cursor = await cursorOf(env, out);
      const r = await cli(["cursors", "reset", out, "--yes"], { env });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toMatch(/^Error: Not reset: The cursor of /);
      expect(r.stderr).toContain(`The cursor of ${out} is unchanged.`);
      expect(await cursorOf(env, out)).toBe(cursor);
    } finally {
      const done = await a.finish();
      expect(done.exitCode, String(done.stderr)).toBe(0);
    }
    expectOnce(idsIn(out), await feedIds(s.sb));
    const reset = await cli(["cursors", "reset", out, "--yes"], { env });
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(reset.stderr).toContain(`Reset the cursor of ${out} (1 checkpoint)`);
  }, 120_000);
});
