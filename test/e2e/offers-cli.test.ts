// End to end: the built bin (built by test/global-setup.ts) against a sandbox on port 0.
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  env = s.env({}, { configDir: tempDir() });
});

describe.concurrent("partner-cli offers (built bin)", () => {
  it("list piped: TSV, leading zeros kept", async () => {
    const r = await cli(["offers", "list"], { env });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(
      "baseGs1\tbrand\ttitle\tstate\tdistributable\tsavings\tredemptionDates\tcodesAvailable\tretailerRule",
    );
    expect(lines).toHaveLength(9);
    expect(lines.map((l) => l.split("\t")[0])).toContain(SEED.offers.oats);
    expect(r.stdout).not.toContain("\u001b[");
  });

  it("list --json --distributable --all: an array of API objects", async () => {
    const r = await cli(["offers", "list", "--json", "--distributable", "--all", "--page-size", "2"], {
      env,
    });
    expect(r.exitCode).toBe(0);
    const items = JSON.parse(r.stdout);
    expect(items).toHaveLength(4);
    expect(items.every((o: { canDistribute: boolean }) => o.canDistribute)).toBe(true);
    expect(r.stdout).toContain(`"baseGs1":"${SEED.offers.oatsUnknownSupply}"`);
  });

  it("get --json keeps barcodes as text", async () => {
    const r = await cli(["offers", "get", SEED.offers.oatsUnknownSupply, "--json"], { env });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).productBarcodes).toEqual(["000000012345"]);
  });

  it("get piped: one field per line, barcodes with their zeros", async () => {
    const r = await cli(["offers", "get", SEED.offers.oats], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`baseGs1\t${SEED.offers.oats}\n`);
    expect(r.stdout).toContain("productBarcodes\t001234500001, 001234500002\n");
  });

  it("a 404 exits 5 with a clear message on stderr and nothing on stdout", async () => {
    const r = await cli(["offers", "get", "0099999999999"], { env });
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/Error: Offer not found\. \(404 not_found; GET \/offers\/0099999999999\)/);
    expect(r.stderr).toMatch(/offers list/);
  });

  it("a bad flag exits 2", async () => {
    const r = await cli(["offers", "list", "--page-size", "0"], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
  });

  it("--help has examples", async () => {
    const r = await cli(["offers", "list", "--help"], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/Examples:\n {2}\$ partner-cli offers list/);
    expect(r.stdout).toMatch(/--distributable/);
  });
});

// Faults affect every request to the sandbox: not alongside the concurrent tests above.
describe("partner-cli offers under faults", () => {
  it("502s until the deadline exit 7", async () => {
    await s.http("POST", "/faults", {
      control: true,
      body: { rates: { "502": 1 }, pathPrefix: "/offers" },
    });
    try {
      const r = await cli(["offers", "list"], { env: { ...env, PARTNER_RETRY_DEADLINE_MS: "300" } });
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toMatch(/502 clearing_network_unavailable/);
    } finally {
      await s.http("DELETE", "/faults", { control: true });
    }
  });
});
