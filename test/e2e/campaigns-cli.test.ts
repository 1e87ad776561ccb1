// End to end: the built bin (built by test/global-setup.ts) against a sandbox on port 0, with a private
// config dir. Exit codes, stdout vs stderr, piped output; and the interactive setup in a real
// terminal (tmux).
import { execFileSync, spawnSync } from "node:child_process";
import { beforeEach, describe, expect, it } from "vitest";
import { day } from "../campaigns/helpers.js";
import { BIN, cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { screenShows } from "../helpers/tmux.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const box = useSandbox();
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  await box.http("POST", "/reset", { control: true, body: {} });
  env = box.env({}, { configDir: tempDir() });
});

const createFlags = (ref: string) => [
  "--name",
  "E2E oats",
  "--offer",
  SEED.offers.oats,
  "--from",
  day(0),
  "--through",
  day(30),
  "--code-limit",
  "300",
  "--rate",
  "0.15",
  "--unit-price",
  "3.25",
  "--external-reference",
  ref,
];

describe("campaigns (built bin)", () => {
  it("create by flags, piped: the record as TSV on stdout, messages on stderr; --activate; get by reference", async () => {
    const r = await cli(["campaigns", "create", ...createFlags("e2e-1"), "--activate"], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^externalReference\te2e-1$/m);
    expect(r.stdout).toMatch(/^status\tactive$/m);
    expect(r.stdout).toMatch(/^estimatedPerRedemption\t0\.4875$/m);
    expect(r.stdout).not.toMatch(/Created/);
    expect(r.stderr).toMatch(/Created campaign .* "E2E oats" \(draft\)/);
    expect(r.stderr).toMatch(/Activated campaign e2e-1/);

    const got = await cli(["campaign", "get", "e2e-1", "--json"], { env });
    expect(got.exitCode).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ externalReference: "e2e-1", status: "active" });

    const listed = await cli(["campaigns", "list", "--status", "active"], { env });
    expect(listed.stdout.trim().split("\n")).toHaveLength(2);
  });

  it("missing flags without a terminal: exit 2, every missing flag named on stderr, nothing on stdout", async () => {
    const r = await cli(["campaigns", "create", "--name", "x", "--rate", "0.1"], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /Missing required flags: --offer, --from, --through, --code-limit, --unit-price/,
    );
    const n = await cli(["campaigns", "create", "--no-input"], { env });
    expect(n.exitCode).toBe(2);
    expect(n.stderr).toMatch(/--name, --offer/);
    expect((await box.http("GET", "/campaigns")).body.totalCount).toBe(0);
  });

  it("a 500 after the create was applied: one campaign; a duplicate reference: exit 6 with the command to inspect it", async () => {
    await box.http("POST", "/faults", {
      control: true,
      body: { next: ["500"], pathPrefix: "/campaigns", method: "POST" },
    });
    const r = await cli(["campaigns", "create", ...createFlags("e2e-500"), "--json"], { env });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).externalReference).toBe("e2e-500");
    expect((await box.http("GET", "/campaigns")).body.totalCount).toBe(1);
    const dup = await cli(["campaigns", "create", ...createFlags("e2e-500")], { env });
    expect(dup.exitCode).toBe(6);
    expect(dup.stdout).toBe("");
    expect(dup.stderr).toContain("partner-cli campaigns get e2e-500");
    expect((await box.http("GET", "/campaigns")).body.totalCount).toBe(1);
  });

  it("status verbs: refusal exit 6, end refused without --yes (exit 2), unknown campaign exit 5, update merges", async () => {
    await cli(["campaigns", "create", ...createFlags("e2e-st")], { env });
    const pause = await cli(["campaigns", "pause", "e2e-st"], { env });
    expect(pause.exitCode).toBe(6);
    expect(pause.stderr).toMatch(/cannot become paused/);
    const end = await cli(["campaigns", "end", "e2e-st"], { env });
    expect(end.exitCode).toBe(2);
    expect(end.stderr).toMatch(/--yes/);
    const upd = await cli(["campaigns", "update", "e2e-st", "--code-limit", "400", "--json"], { env });
    expect(upd.exitCode).toBe(0);
    expect(JSON.parse(upd.stdout)).toMatchObject({
      codes: { limit: 400 },
      commission: { rate: 0.15 },
      name: "E2E oats",
    });
    const ended = await cli(["campaigns", "end", "e2e-st", "--yes"], { env });
    expect(ended.exitCode).toBe(0);
    expect(ended.stdout).toMatch(/^status\tended$/m);
    const missing = await cli(["campaigns", "activate", "no-such-ref"], { env });
    expect(missing.exitCode).toBe(5);
    expect(missing.stderr).toMatch(/No campaign has the external reference "no-such-ref"/);
  });
});

const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
/** Shown in the test name: the real-terminal run needs tmux; the scripted-prompter tests run anyway. */
const tmuxNote = hasTmux ? "" : " (SKIPPED: tmux is not installed; see test/campaigns/interactive.test.ts)";

describe("campaigns create: interactive setup in a real terminal (tmux)", () => {
  it.skipIf(!hasTmux)(
    `walks the prompts and creates the campaign${tmuxNote}`,
    { timeout: 120_000 },
    async () => {
      const socket = `pcli-h6-${process.pid}`;
      const session = "setup";
      const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
      const screen = () => tmux("capture-pane", "-p", "-J", "-t", session);
      const waitFor = (re: RegExp, what: string) => screenShows(screen, re, what);
      const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
      const command = [
        "env",
        `PARTNER_BASE_URL=${q(env.PARTNER_BASE_URL!)}`,
        `PARTNER_API_KEY=${q(env.PARTNER_API_KEY!)}`,
        `PARTNER_CLI_CONFIG_DIR=${q(env.PARTNER_CLI_CONFIG_DIR!)}`,
        "NO_COLOR=1",
        "node",
        q(BIN),
        "campaigns",
        "create",
        "; echo EXIT=$?; sleep 60",
      ].join(" ");
      tmux("new-session", "-d", "-s", session, "-x", "220", "-y", "50", command);
      try {
        const type = (text: string) => tmux("send-keys", "-t", session, "-l", text);
        const enter = () => tmux("send-keys", "-t", session, "Enter");
        await waitFor(/Brand/, "the brand prompt");
        enter(); // first brand: Crunchy Oats Co.
        await waitFor(/Offer\b/, "the offer prompt");
        enter(); // its first distributable offer
        await waitFor(/Campaign name/, "the name prompt");
        type("Tmux campaign");
        enter();
        await waitFor(/First day/, "the first-day prompt");
        enter(); // default
        await waitFor(/Last day/, "the last-day prompt");
        type(day(20));
        enter();
        await waitFor(/Code limit/, "the code-limit prompt");
        type("250");
        enter();
        await waitFor(/Commission rate/, "the rate prompt");
        type("0.1");
        enter();
        await waitFor(/unit sale price/, "the price prompt");
        type("2.5");
        enter();
        await waitFor(/Estimated commission per redemption: \$0\.25/, "the commission estimate");
        await waitFor(/External reference/, "the reference prompt");
        type("tmux-ref");
        enter();
        await waitFor(/Create this campaign\?/, "the confirmation");
        const summary = screen();
        expect(summary).toMatch(/Tmux campaign/);
        expect(summary).toMatch(/Code limit\s+250/);
        enter(); // yes (default)
        await waitFor(/Activate the campaign now\?/, "the activation question");
        enter(); // yes (default)
        await waitFor(/roster a share link now\?/, "the links question");
        type("n");
        enter();
        const end = await waitFor(/EXIT=\d+/, "the end of the command");
        expect(end).toMatch(/EXIT=0/);
        expect(end).toMatch(/Created campaign/);
      } finally {
        try {
          tmux("kill-server");
        } catch {
          // already gone
        }
      }
      const c = (await box.http("GET", "/campaigns?externalReference=tmux-ref")).body.items[0];
      expect(c).toMatchObject({
        name: "Tmux campaign",
        status: "active",
        codes: { limit: 250 },
        dates: { from: day(0), through: day(20) },
        commission: { rate: 0.1, estimatedUnitSalePrice: 2.5 },
      });
      expect(c.offer.brand.name).toBe("Crunchy Oats Co.");
    },
  );
});
