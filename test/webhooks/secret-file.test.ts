// prepareSecretFile (src/commands/webhooks/shared.ts): the --secret-file reserved before the request
// with the open the write uses; the write is atomic, 0600, and never replaces a file that appeared.
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prepareSecretFile } from "../../src/commands/webhooks/shared.js";
import { UsageError } from "../../src/errors.js";
import { tempDir } from "../helpers/sandbox.js";

describe("prepareSecretFile", () => {
  it("reserves a 0600 temp file beside the target; write puts the lines in place, nothing left over", async () => {
    const dir = tempDir();
    const path = join(dir, "hook.secret");
    const f = await prepareSecretFile(path, false);
    const [tmp] = readdirSync(dir);
    expect(tmp).toMatch(/^\.hook\.secret\.[0-9a-f]{12}\.tmp$/);
    expect(statSync(join(dir, tmp!)).mode & 0o777).toBe(0o600);
    await f.write(["whsec_new", "whsec_old"]);
    expect(readFileSync(path, "utf8")).toBe("whsec_new\nwhsec_old\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["hook.secret"]);
  });

  it("a file that appeared after the check is not replaced (without --force); the temp file is removed", async () => {
    const dir = tempDir();
    const path = join(dir, "hook.secret");
    const f = await prepareSecretFile(path, false);
    writeFileSync(path, "someone else's\n");
    const err = await f.write(["whsec_new"]).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/appeared meanwhile; it was not replaced/);
    expect(readFileSync(path, "utf8")).toBe("someone else's\n");
    expect(readdirSync(dir)).toEqual(["hook.secret"]);
  });

  it("--force replaces a regular file atomically; discard leaves nothing", async () => {
    const dir = tempDir();
    const path = join(dir, "hook.secret");
    writeFileSync(path, "whsec_old\n", { mode: 0o644 });
    const f = await prepareSecretFile(path, true);
    await f.write(["whsec_new"]);
    expect(readFileSync(path, "utf8")).toBe("whsec_new\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const g = await prepareSecretFile(join(dir, "other"), false);
    await g.discard();
    await g.discard();
    expect(readdirSync(dir)).toEqual(["hook.secret"]);
  });

  it("refuses, before anything is created: an existing file without force, a folder, a symlink (even with force)", async () => {
    const dir = tempDir();
    const existing = join(dir, "existing");
    writeFileSync(existing, "x\n");
    const folder = join(dir, "folder");
    mkdirSync(folder);
    const link = join(dir, "link");
    symlinkSync(join(dir, "missing"), link);
    await expect(prepareSecretFile(existing, false)).rejects.toThrow(/already exists\. Nothing was sent\./);
    await expect(prepareSecretFile(folder, true)).rejects.toThrow(/is not a regular file/);
    await expect(prepareSecretFile(link, true)).rejects.toThrow(/symbolic link to a missing file/);
    await expect(prepareSecretFile(join(dir, "nodir", "x"), false)).rejects.toThrow(
      /Cannot write the secret file .*ENOENT\. Nothing was sent\./,
    );
    expect(readdirSync(dir).sort()).toEqual(["existing", "folder", "link"]);
  });
});
