// links assign: --column, --encoding and --delimiter say how to read the --ids file. Without --ids
// (--roster, or EXTERNAL_ID arguments) there is no file to read: they are refused with exit 2
// before any request, instead of being silently ignored.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";

describe("links assign: file-reading flags without --ids", () => {
  const s = useSandbox({ seed: "demo", resetEach: true });
  // An unknown campaign proves no request was made: reaching the service would be a 404 (exit 5).
  const campaign = "no-such-campaign";

  it("--roster with --column: exit 2, says the flag needs --ids, nothing sent", async () => {
    const r = await s.run(["links", "assign", campaign, "--roster", "--column", "externalId=Member No"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      "--column says how to read the --ids file, but no --ids file was given (--roster). Nothing was sent.",
    );
    expect(r.stderr).toContain("Drop it, or give the creators as --ids FILE.");
    expect(r.stdout).toBe("");
  });

  it("EXTERNAL_ID arguments with --encoding and --delimiter: exit 2, both named", async () => {
    const r = await s.run([
      "links",
      "assign",
      campaign,
      "cr-0001",
      "--encoding",
      "latin1",
      "--delimiter",
      ";",
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      "--encoding and --delimiter say how to read the --ids file, but no --ids file was given (the creators are EXTERNAL_ID arguments). Nothing was sent.",
    );
    expect(r.stderr).toContain("Drop them, or give the creators as --ids FILE.");
  });

  it("the same flags with --ids still apply to the file (and then the campaign is looked up)", async () => {
    const file = join(tempDir(), "ids.csv");
    writeFileSync(file, Buffer.from("Member No;name\ncr-0001;Zo\xeb\n", "latin1"));
    const r = await s.run([
      "links",
      "assign",
      campaign,
      "--ids",
      file,
      "--column",
      "externalId=Member No",
      "--encoding",
      "latin1",
      "--delimiter",
      ";",
    ]);
    // The file was read with the flags (the note names the column), then the campaign is unknown.
    expect(r.stderr).toContain('read 1 id (CSV column "Member No", fields separated by');
    expect(r.exitCode).toBe(5);
  });
});
