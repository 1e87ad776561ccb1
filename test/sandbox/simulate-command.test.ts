// `partner-cli sandbox simulate` (in-process runs against a sandbox on port 0): --campaign resolved
// like every CAMPAIGN argument, notes as warnings on stderr, exit 3 when nothing asked for could be
// generated.
import { beforeAll, describe, expect, it } from "vitest";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";
import { TRAFFIC, makeCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox();
let env: NodeJS.ProcessEnv;
let id: string;
beforeAll(async () => {
  env = s.env({}, { configDir: tempDir() });
  id = (await makeCampaign(s.sb, { ...TRAFFIC, externalReference: "spring-oats", codeLimit: 10 })).id;
});

const run = (args: string[]) => runIn(["sandbox", "simulate", ...args], { env });
const feedCount = async () => (await s.http("GET", "/redemptions?limit=1000")).body.items.length as number;

describe("sandbox simulate", () => {
  it("--campaign REF works; a shortfall is a warning on stderr and still exit 0", async () => {
    const r = await run(["--campaign", "spring-oats", "--claims", "4", "--redemptions", "2", "--json"]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ claims: 4, redemptions: 2, notes: [] });
    expect(r.stderr).toBe("");
    // 6 codes remain under the limit of 10: 6 of 8 claims.
    const short = await run(["--campaign", id, "--claims", "8"]);
    expect(short.exitCode).toBe(0);
    expect(short.stdout).toMatch(/^claims\t6$/m);
    expect(short.stdout).not.toMatch(/^notes/m);
    // The campaigns as a line of names and references, not a JSON array (issue 26).
    expect(short.stdout).toMatch(/^campaigns\t.+ \(spring-oats\)$/m);
    expect(short.stdout).not.toContain("[{");
    expect(short.stderr).toBe("Warning: spring-oats: 6 of 8 claims (codes ran out).\n");
  });

  it("nothing asked for could be generated: says so, exit 3, warnings say why", async () => {
    const before = await feedCount();
    const r = await run(["--campaign", "spring-oats", "--claims", "3", "--restorations", "1"]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(/^claims\t0$/m);
    expect(r.stderr).toContain("Warning: spring-oats: 0 of 3 claims (no codes remain under its limit).");
    expect(r.stderr).toContain(
      "Warning: spring-oats: 0 of 1 restorations (not enough excluded redemptions).",
    );
    expect(r.stderr).toMatch(
      /^Error: Nothing that was asked for could be generated \(0 claims, 0 restorations\)\.$/m,
    );
    expect(await feedCount()).toBe(before);
    // --json: the answer on stdout, the same exit code.
    const j = await run(["--campaign", "spring-oats", "--claims", "3", "--json"]);
    expect(j.exitCode).toBe(3);
    expect(JSON.parse(j.stdout).notes).toHaveLength(1);
  });

  it("no active campaign and no --campaign: exit 3; an explicit zero asks for nothing: exit 0", async () => {
    await s.http("POST", `/campaigns/${id}/status`, { body: { status: "paused" } });
    try {
      const r = await run([]);
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toMatch(/Warning: No active campaign: nothing to simulate/);
      expect(r.stderr).toMatch(/Nothing that was asked for could be generated/);
      const zero = await run(["--views", "0"]);
      expect(zero.exitCode).toBe(0);
    } finally {
      await s.http("POST", `/campaigns/${id}/status`, { body: { status: "active" } });
    }
  });

  it("an unknown --campaign is exit 5 naming it; nothing is simulated", async () => {
    const before = await feedCount();
    const r = await run(["--campaign", "spring-oatz", "--redemptions", "1"]);
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/--campaign "spring-oatz" matches no campaign/);
    expect(await feedCount()).toBe(before);
  });
});
