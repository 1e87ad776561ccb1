// webhooks verify: exit 0 valid / 3 invalid with the reason / 2 unreadable files. Signatures are
// made with openssl (independent of src/webhooks/signature.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";
import { opensslHmac } from "../sandbox/webhooks-receiver.js";

const dir = tempDir("pcli-verify-");
const SECRET = "whsec_current0000000000000000000000000";
const OLD = "whsec_previous000000000000000000000000";
const body = Buffer.from(
  '{"id":"0190a1b2-0000-7000-8000-000000000001","type":"code.issued","sample":false,"data":{"x":"é"}}',
);
const bodyFile = join(dir, "body.json");
writeFileSync(bodyFile, body);
const secretFile = join(dir, "secret");
writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
const bothFile = join(dir, "both");
writeFileSync(bothFile, `${SECRET}\n${OLD}\n`, { mode: 0o600 });
const oldFile = join(dir, "old");
writeFileSync(oldFile, `${OLD}\n`, { mode: 0o600 });

const now = () => Math.floor(Date.now() / 1000);
const header = (secret: string, t = now(), b = body) => `t=${t},v1=${opensslHmac(secret, t, b)}`;
const verify = (args: string[], o: { stdin?: string } = {}) =>
  runIn(["webhooks", "verify", ...args], { env: { PARTNER_CLI_CONFIG_DIR: dir }, ...o });

describe("webhooks verify", () => {
  test("valid with --body and from stdin; --json", async () => {
    const h = header(SECRET);
    const r = await verify(["--secret-file", secretFile, "--header", h, "--body", bodyFile]);
    expect(r).toMatchObject({ exitCode: 0, stdout: "valid\n" });
    const s = await verify(["--secret-file", secretFile, "--header", h], { stdin: body.toString("utf8") });
    expect(s).toMatchObject({ exitCode: 0, stdout: "valid\n" });
    const j = await verify(["--secret-file", secretFile, "--header", h, "--body", bodyFile, "--json"]);
    expect(JSON.parse(j.stdout)).toMatchObject({ valid: true });
  });

  test("wrong secret, one byte changed, re-serialized JSON: exit 3 naming the mismatch", async () => {
    const wrong = await verify(["--secret-file", oldFile, "--header", header(SECRET), "--body", bodyFile]);
    expect(wrong.exitCode).toBe(3);
    expect(wrong.stderr).toContain("no v1 signature matches");
    expect(wrong.stderr).not.toContain(OLD);
    const changed = Buffer.from(body);
    changed[10] = changed[10]! ^ 1;
    const f = join(dir, "changed.json");
    writeFileSync(f, changed);
    const r = await verify(["--secret-file", secretFile, "--header", header(SECRET), "--body", f]);
    expect(r.exitCode).toBe(3);
    const pretty = join(dir, "pretty.json");
    writeFileSync(pretty, JSON.stringify(JSON.parse(body.toString("utf8")), null, 2));
    expect(
      (await verify(["--secret-file", secretFile, "--header", header(SECRET), "--body", pretty])).exitCode,
    ).toBe(3);
  });

  test("stale and future timestamps beyond the tolerance; --tolerance widens it", async () => {
    const stale = await verify([
      "--secret-file",
      secretFile,
      "--header",
      header(SECRET, now() - 301),
      "--body",
      bodyFile,
    ]);
    expect(stale.exitCode).toBe(3);
    expect(stale.stderr).toMatch(/seconds old/);
    const future = await verify([
      "--secret-file",
      secretFile,
      "--header",
      header(SECRET, now() + 400),
      "--body",
      bodyFile,
    ]);
    expect(future.exitCode).toBe(3);
    expect(future.stderr).toMatch(/in the future/);
    const wide = await verify([
      "--secret-file",
      secretFile,
      "--header",
      header(SECRET, now() - 1000),
      "--body",
      bodyFile,
      "--tolerance",
      "2000",
    ]);
    expect(wide.exitCode).toBe(0);
  });

  test("missing or empty v1, malformed header: exit 3 with the reason", async () => {
    const t = now();
    const cases: [string, RegExp][] = [
      [`t=${t}`, /no v1= signature/],
      [`t=${t},v1=`, /empty v1= signature/],
      [`v1=${opensslHmac(SECRET, t, body)}`, /no t= timestamp/],
      ["garbage", /malformed/],
      [`t=yesterday,v1=${opensslHmac(SECRET, t, body)}`, /not unix seconds/],
      ["", /missing or empty/],
    ];
    for (const [h, reason] of cases) {
      const r = await verify(["--secret-file", secretFile, "--header", h, "--body", bodyFile]);
      expect(r.exitCode, h).toBe(3);
      expect(r.stderr, h).toMatch(reason);
    }
  });

  test("rotation: either v1 value, and either secret in a two-line file", async () => {
    const t = now();
    const two = `t=${t},v1=${opensslHmac(SECRET, t, body)},v1=${opensslHmac(OLD, t, body)}`;
    expect((await verify(["--secret-file", oldFile, "--header", two, "--body", bodyFile])).exitCode).toBe(0);
    expect((await verify(["--secret-file", secretFile, "--header", two, "--body", bodyFile])).exitCode).toBe(
      0,
    );
    // A header signed only by the previous secret verifies with the two-line file.
    expect(
      (await verify(["--secret-file", bothFile, "--header", header(OLD, t), "--body", bodyFile])).exitCode,
    ).toBe(0);
    expect(
      (await verify(["--secret-file", bothFile, "--header", header(SECRET, t), "--body", bodyFile])).exitCode,
    ).toBe(0);
    // v0= and unknown schemes are ignored.
    const mixed = `t=${t},v0=abc,v1=${"0".repeat(64)},v1=${opensslHmac(SECRET, t, body)}`;
    expect(
      (await verify(["--secret-file", secretFile, "--header", mixed, "--body", bodyFile])).exitCode,
    ).toBe(0);
  });

  test("unreadable files and missing flags: exit 2", async () => {
    const h = header(SECRET);
    const noSecret = await verify(["--secret-file", join(dir, "absent"), "--header", h, "--body", bodyFile]);
    expect(noSecret.exitCode).toBe(2);
    expect(noSecret.stderr).toContain("ENOENT");
    expect(
      (await verify(["--secret-file", secretFile, "--header", h, "--body", join(dir, "nobody")])).exitCode,
    ).toBe(2);
    expect((await verify(["--secret-file", dir, "--header", h, "--body", bodyFile])).exitCode).toBe(2);
    const empty = join(dir, "empty");
    writeFileSync(empty, "\n\n");
    expect((await verify(["--secret-file", empty, "--header", h, "--body", bodyFile])).exitCode).toBe(2);
    expect((await verify(["--header", h, "--body", bodyFile])).exitCode).toBe(2);
    expect((await verify(["--secret-file", secretFile, "--body", bodyFile])).exitCode).toBe(2);
    expect((await verify(["--secret-file", secretFile, "--header", h, "--tolerance", "-5"])).exitCode).toBe(
      2,
    );
  });
});
