// Tables that fit, in a real terminal: at 80 and 120 columns, no line that `offers list`,
// `campaigns list` or `reports campaign` draws (stderr notes included) is wider than the pane.
// capture-pane -J joins wrapped lines, so a line that wrapped shows up wider than the pane.
import stringWidth from "string-width";
import { beforeAll, describe, expect, it } from "vitest";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { BIN } from "../helpers/cli.js";
import { useSandbox } from "../helpers/harness.js";
import { hasTmux, shq, tmuxSession, tmuxSkipNote } from "../helpers/tmux.js";

const s = useSandbox({ seed: "demo" });
const REF = "tmux-fit-spring-oats-launch-with-a-long-reference";

beforeAll(async () => {
  const { id } = await makeCampaign(s.sb, { ...FEED, name: `Export test ${REF}`, externalReference: REF });
  await simulate(s.sb, { campaign: id, views: 80, claims: 30, redemptions: 20, seed: 9 });
}, 120_000);

const COMMANDS: Record<string, string[]> = {
  "offers list": ["offers", "list"],
  "campaigns list": ["campaigns", "list"],
  "reports campaign": ["reports", "campaign", REF, "--preset", "7d", "--page-size", "10"],
};

describe.each([80, 120])("at %i columns", (width) => {
  it.skipIf(!hasTmux).each(Object.entries(COMMANDS))(
    `%s: no line wider than the pane${tmuxSkipNote}`,
    { timeout: 90_000 },
    async (name, argv) => {
      const env = s.env({ NO_COLOR: "1" });
      const vars = Object.entries(env)
        .map(([k, v]) => `${k}=${shq(String(v))}`)
        .join(" ");
      const t = tmuxSession(
        `env -u COLUMNS ${vars} node ${shq(BIN)} ${argv.map(shq).join(" ")}; echo "EXIT=$?"; sleep 60`,
        `fit${width}${name.replace(/\W/g, "")}`,
        { width, height: 80 },
      );
      try {
        const screen = await t.waitFor(/EXIT=\d+/, `${name} to end`);
        expect(screen).toMatch(/EXIT=0/);
        const lines = screen.split("\n");
        const widest = Math.max(...lines.map((l) => stringWidth(l)));
        expect(widest, screen).toBeLessThanOrEqual(width);
        // It is a table (a header row), not an error.
        expect(screen).toMatch(
          name === "offers list"
            ? /^Base GS1 {2}/m
            : name === "campaigns list"
              ? /^External ref/m
              : /^Rank {2}/m,
        );
      } finally {
        t.kill();
      }
    },
  );
});

describe("reports creators at 80 columns (issue 26)", () => {
  it.skipIf(!hasTmux)(
    `fits by content: names whole, long headers give way; headed in words, money in dollars${tmuxSkipNote}`,
    { timeout: 90_000 },
    async () => {
      const json = await s.run([
        "reports",
        "creators",
        "--preset",
        "7d",
        "--campaign",
        REF,
        "--json",
        "--quiet",
      ]);
      expect(json.exitCode, json.stderr).toBe(0);
      const counts = json.json<{ creator: { name: string }; estimatedCommission: number }[]>();
      expect(counts.length).toBeGreaterThan(0);
      const env = s.env({ NO_COLOR: "1" });
      const vars = Object.entries(env)
        .map(([k, v]) => `${k}=${shq(String(v))}`)
        .join(" ");
      const argv = ["reports", "creators", "--preset", "7d", "--campaign", REF, "--quiet"];
      const t = tmuxSession(
        `env -u COLUMNS ${vars} node ${shq(BIN)} ${argv.map(shq).join(" ")}; echo "EXIT=$?"; sleep 60`,
        "fit80creators",
        { width: 80, height: 80 },
      );
      try {
        const screen = await t.waitFor(/EXIT=\d+/, "reports creators to end");
        expect(screen).toMatch(/EXIT=0/);
        const lines = screen.split("\n");
        expect(Math.max(...lines.map((l) => stringWidth(l))), screen).toBeLessThanOrEqual(80);
        expect(screen).toMatch(/^Creator {2,}Name {2,}/m);
        expect(screen).toContain("Est. commission");
        for (const c of counts) expect(screen, screen).toContain(c.creator.name);
        // Two decimals and the currency in the table (JSON keeps the API's full precision).
        expect(screen).toMatch(/ \$\d[\d,]*\.\d\d(\s|$)/m);
      } finally {
        t.kill();
      }
    },
  );
});
