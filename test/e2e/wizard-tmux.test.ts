// The campaign wizard in a real terminal (tmux), issue 26 items 1-3: a Ctrl-C once the campaign
// exists says what was created and the command that finishes the job; the code limit's error
// states the prompt's range; a first day in the past is said and asked about.
import { beforeEach, describe, expect, it } from "vitest";
import { day } from "../campaigns/helpers.js";
import { BIN } from "../helpers/cli.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";
import { hasTmux, shq, type TmuxSession, tmuxSession, tmuxSkipNote } from "../helpers/tmux.js";
import { SEED } from "../../src/sandbox/seed.js";

const box = useSandbox();
beforeEach(async () => {
  await box.http("POST", "/reset", { control: true, body: {} });
});

/** `campaigns create` with these flags in a terminal (the wizard asks for the rest). */
function wizard(name: string, flags: string[]): TmuxSession {
  const env = box.env({ NO_COLOR: "1" }, { configDir: tempDir() });
  const vars = ["PARTNER_BASE_URL", "PARTNER_API_KEY", "PARTNER_CLI_CONFIG_DIR", "NO_COLOR"]
    .map((k) => `${k}=${shq(String(env[k] ?? ""))}`)
    .join(" ");
  const argv = ["campaigns", "create", "--offer", SEED.offers.oats, "--name", "Wizard", ...flags];
  return tmuxSession(
    `env ${vars} ${shq(process.execPath)} ${shq(BIN)} ${argv.map(shq).join(" ")}; echo "EXIT=$?"; sleep 60`,
    name,
  );
}

const campaignByRef = async (ref: string) =>
  (await box.http("GET", `/campaigns?externalReference=${ref}`)).body.items[0];

const common = ["--rate", "0.1", "--unit-price", "1"];

describe("campaigns create: the wizard in a real terminal (tmux)", () => {
  it.skipIf(!hasTmux)(
    `code limit 0 is refused with the prompt's range; Ctrl-C at the activation says what was created and how to activate it (exit 130)${tmuxSkipNote}`,
    { timeout: 120_000 },
    async () => {
      const t = wizard("wizcc", [
        "--from",
        day(0),
        "--through",
        day(10),
        ...common,
        "--external-reference",
        "wiz-cc",
      ]);
      try {
        await t.waitFor(/Code limit \(1 to 50,000\)/, "the code-limit prompt (the offer has 50,000 codes)");
        t.type("0");
        t.enter();
        const refused = await t.waitFor(/must be between/, "the code limit's error");
        expect(refused).toMatch(/must be between 1 and 50,000 \(the codes the offer has available\)/);
        expect(refused).not.toMatch(/10,000,000/);
        t.keys("BSpace");
        t.type("5");
        t.enter();
        await t.waitFor(/Create this campaign\?/, "the confirmation");
        t.enter();
        await t.waitFor(/Activate the campaign now\?/, "the activation question");
        t.keys("C-c");
        const end = await t.waitFor(/EXIT=\d+/, "the end of the command");
        expect(end).toMatch(/EXIT=130/);
        const c = await campaignByRef("wiz-cc");
        expect(c.status).toBe("draft");
        expect(end).toContain(
          `Cancelled. The campaign was created as a draft (id ${c.id}, reference wiz-cc); not activated.`,
        );
        expect(end).toContain("Activate it: partner-cli campaigns activate wiz-cc");
      } finally {
        t.kill();
      }
    },
  );

  it.skipIf(!hasTmux)(
    `a first day in the past is said and asked about; declined, the first day is asked again${tmuxSkipNote}`,
    { timeout: 120_000 },
    async () => {
      const t = wizard("wizpast", [
        "--through",
        day(10),
        "--code-limit",
        "5",
        ...common,
        "--external-reference",
        "wiz-past",
      ]);
      try {
        await t.waitFor(/First day/, "the first-day prompt");
        t.type(day(-5));
        t.enter();
        const asked = await t.waitFor(/anyway\?/, "the question about the past day");
        expect(asked).toContain(
          `Warning: ${day(-5)} is in the past (today is ${day(0)}, UTC): the campaign would start 5 days ago.`,
        );
        expect(asked).toContain(`Start on ${day(-5)} anyway?`);
        t.type("n");
        t.enter();
        await t.waitFor(/First day[\s\S]*anyway\?[\s\S]*First day/, "the first day asked again");
        t.enter(); // today, the default
        const summary = await t.waitFor(/Create this campaign\?/, "the confirmation");
        expect(summary).toMatch(new RegExp(`Dates\\s+${day(0)} to ${day(10)}`));
        t.type("n");
        t.enter();
        const end = await t.waitFor(/EXIT=\d+/, "the end of the command");
        expect(end).toMatch(/EXIT=2/);
        expect(end).toMatch(/Not created; nothing was sent/);
        expect(await campaignByRef("wiz-past")).toBeUndefined();
      } finally {
        t.kill();
      }
    },
  );
});
