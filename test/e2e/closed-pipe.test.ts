// A closed pipe (`partner-cli ... | head`) ends the output quietly: exit 0, nothing on stderr
// (bin/partner-cli.js's handler on process.stdout and process.stderr).
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BIN } from "../helpers/cli.js";

describe("a closed pipe", () => {
  it.each([[["--help"]], [["-h"]], [["help"]], [["roster", "--help"]], [["--version"]]])(
    "%j | true: exit 0 and nothing on stderr",
    (argv) => {
      const r = spawnSync(
        "bash",
        ["-c", `"$0" "$@" | true; echo "status \${PIPESTATUS[0]}" >&2`, process.execPath, BIN, ...argv],
        { encoding: "utf8" },
      );
      expect(r.stderr).toBe("status 0\n");
      expect(r.stdout).toBe("");
    },
  );
});
