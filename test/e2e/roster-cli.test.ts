// End to end: the built bin (built by test/global-setup.ts) with a private config dir, against a
// sandbox on port 0 or the embedded sandbox (chosen with --sandbox / PARTNER_SANDBOX=1: there is no
// terminal here). Exit codes, stdout vs stderr, --json, no TTY.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { type SandboxFixture, useSandbox, withSandbox } from "../helpers/harness.js";

const EXAMPLE = fileURLToPath(new URL("../../docs/examples/roster.csv", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const box = useSandbox();

/** A private config dir and temp dir per test, so the tests can run concurrently. */
function setup(target: SandboxFixture = box) {
  const dir = tempDir();
  const env = target.env({}, { configDir: tempDir() });
  const file = (name: string, content: string | Buffer) => {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  };
  return { dir, env, file };
}

describe("partner-cli roster (built bin)", () => {
  it("the README's first command: the example roster into the embedded sandbox, twice", async () => {
    // Exactly the command the README starts with, run from the checkout as a new user would.
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const args = /npm install && npm run build && npx partner-cli ([^#\n]+)/
      .exec(readme)![1]!
      .trim()
      .split(/\s+/);
    expect(args).toEqual(["roster", "import", "docs/examples/roster.csv", "--sandbox"]);
    const own = { PARTNER_CLI_CONFIG_DIR: tempDir() };
    const first = await cli(args, { env: own, cwd: ROOT });
    expect(first.stderr).toMatch(/embedded sandbox/);
    expect(first.stderr).toMatch(/20 rows in 1 batch: 20 added, 0 updated, 0 unchanged, 0 rejected/);
    expect(first.stdout).toBe("");
    expect(first.exitCode).toBe(0);
    const second = await cli(["roster", "import", EXAMPLE, "--json"], {
      env: { ...own, PARTNER_SANDBOX: "1" },
    });
    expect(second.exitCode).toBe(0);
    expect(JSON.parse(second.stdout).summary).toEqual({
      rows: 20,
      added: 0,
      updated: 0,
      unchanged: 20,
      rejected: 0,
    });
  });

  it("--json with rejected rows: exit 3, the result on stdout, the reasons on stderr, the rejects file", async () => {
    const { dir, env, file } = setup();
    const roster = file(
      "r.csv",
      '\ufeffexternalId,name,email\r\ne-1,"Lopez, Ana",ana@example.com\r\ne-2,Bob,bad\r\n\r\ne-1,Again,\r\n',
    );
    const rejects = join(dir, "rejects.csv");
    const r = await cli(["roster", "import", roster, "--json", "--rejects", rejects], { env });
    expect(r.exitCode).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.summary).toEqual({ rows: 3, added: 1, updated: 0, unchanged: 0, rejected: 2 });
    expect(out.rejected).toEqual([
      { line: 3, externalId: "e-2", reasons: ["email: must be a valid email address"] },
      { line: 5, externalId: "e-1", reasons: ["externalId: also on line 2"] },
    ]);
    expect(r.stderr).toMatch(/line 3 \(e-2\): email: must be a valid email address/);
    // With --json the failure is one JSON object on stderr.
    expect(r.stderr).toMatch(
      /^\{"error":\{"code":"partial_failure","message":"2 of 3 rows were rejected\.".*"exitCode":3\}$/m,
    );
    expect(readFileSync(rejects, "utf8")).toBe(
      "line,reasons,externalId,name,email\n3,email: must be a valid email address,e-2,Bob,bad\n5,externalId: also on line 2,e-1,Again,\n",
    );
  });

  it("unusable files are exit 2 with the line named and nothing on stdout", async () => {
    const { env, file } = setup();
    const utf = file(
      "latin1.csv",
      Buffer.concat([Buffer.from("externalId,name\nx-1,Ren"), Buffer.from([0xe9, 0x0a])]),
    );
    const a = await cli(["roster", "import", utf, "--json"], { env });
    expect(a.exitCode).toBe(2);
    expect(a.stdout).toBe("");
    expect(a.stderr).toMatch(/line 2, field 2 \(name\): bytes that are not UTF-8/);
    expect(a.stderr).toMatch(/CSV UTF-8/);

    const quote = file("quote.csv", 'externalId,name\nx-1,Ann\nx-2,"Bob\nx-3,Cy\n');
    const b = await cli(["roster", "import", quote], { env });
    expect(b.exitCode).toBe(2);
    expect(b.stderr).toMatch(
      /line 3, field 2 \(name\): a quoted field opens here and is never closed\. Nothing was sent/,
    );

    const noId = file("noid.csv", "code,name\n1,Ann\n");
    const c = await cli(["roster", "import", noId], { env });
    expect(c.exitCode).toBe(2);
    expect(c.stderr).toMatch(/no externalId column\. The columns found are: "code", "name"/);
    expect(c.stderr).toMatch(/--column externalId=/);

    expect((await box.http("GET", "/creators/x-1")).status).toBe(404);
  });

  it("--column, --dry-run: nothing sent", async () => {
    const { env, file } = setup();
    const roster = file("m.csv", "Creator ID,Full Name\nm-1,Ann\nm-2,Bob\n");
    const r = await cli(
      [
        "roster",
        "import",
        roster,
        "--dry-run",
        "--column",
        "externalId=Creator ID",
        "--column",
        "name=full name",
      ],
      { env },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/2 valid and would be sent in 1 batch/);
    expect((await box.http("GET", "/creators/m-1")).status).toBe(404);
  });

  it("set, get and export → import round trip", async () => {
    await withSandbox({}, async (own) => {
      const { dir, env } = setup(own);
      const id = "Zoë/100% sure";
      const s = await cli(["roster", "set", id, "--name", "Zoë", "--handle", "@zoe"], { env });
      expect(s.exitCode).toBe(0);
      expect(s.stderr).toMatch(/Created creator Zoë\/100% sure/);
      const g = await cli(["roster", "get", id, "--json"], { env });
      expect(JSON.parse(g.stdout)).toMatchObject({ externalId: id, handle: "@zoe" });
      const out = join(dir, "export.csv");
      const e = await cli(["roster", "export", "--out", out], { env });
      expect(e.exitCode).toBe(0);
      expect(readFileSync(out, "utf8")).toContain("Zoë/100% sure,Zoë,,'@zoe,true");
      const back = await cli(["roster", "import", out, "--json"], { env });
      expect(back.exitCode).toBe(0);
      expect(JSON.parse(back.stdout).summary).toMatchObject({ rows: 13, unchanged: 13 });
    });
  });

  it("--help shows examples", async () => {
    const r = await cli(["roster", "import", "--help"], { env: setup().env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/Examples:\n {2}\$ partner-cli roster import roster.csv/);
  });
});
