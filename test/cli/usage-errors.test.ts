// Issue 26, item 7: commander's parse errors read like every other error: "Error: ...", one
// capitalisation, the suggestion in the sentence, one hint naming the help of the command typed.
import { describe, expect, it } from "vitest";
import { runIn } from "../helpers/run.js";

const CASES: [string[], string][] = [
  [
    ["login", "--api-key"],
    `Error: unknown option '--api-key'. Did you mean --api-key-stdin?\nRun "partner-cli login --help" for usage.\n`,
  ],
  [
    ["campaigns", "lst"],
    `Error: unknown command 'lst'. Did you mean list?\nRun "partner-cli campaigns --help" for usage.\n`,
  ],
  [
    ["campaigns", "get"],
    `Error: missing required argument 'id-or-ref'.\nRun "partner-cli campaigns get --help" for usage.\n`,
  ],
  [
    ["roster", "list", "--active", "maybe"],
    `Error: option '--active <true|false>' argument 'maybe' is invalid. Expected true or false.\nRun "partner-cli roster list --help" for usage.\n`,
  ],
  [
    ["offers", "list", "--brnd", "x"],
    `Error: unknown option '--brnd'. Did you mean --brand?\nRun "partner-cli offers list --help" for usage.\n`,
  ],
];

describe("usage errors found by the parser", () => {
  it.each(CASES)("%j: exit 2, one sentence, one hint", async (argv, text) => {
    const r = await runIn(argv, { env: { PARTNER_CLI_CONFIG_DIR: "/nonexistent-partner-cli-test" } });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(text);
  });
});
