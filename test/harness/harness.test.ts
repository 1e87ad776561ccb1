// The harness itself: lifecycle, reset, and every way of reaching the sandbox aims at the same one.
import { describe, expect, it } from "vitest";
import { useSandbox, withSandbox } from "../helpers/harness.js";

describe("useSandbox", () => {
  const s = useSandbox({ seed: "empty", resetEach: true });

  it("runs the program in-process against this sandbox, with a private config dir", async () => {
    const r = await s.run(["roster", "list", "--json"]);
    expect(r.exitCode).toBe(0);
    expect(r.json()).toEqual([]);
    expect(s.env().PARTNER_CLI_CONFIG_DIR).not.toBe(s.env().PARTNER_CLI_CONFIG_DIR);
  });

  it("resets before each test: what the last test made is gone", async () => {
    const put = await s.http("PUT", "/creators/c-1", { body: { name: "Ana", email: "ana@example.com" } });
    expect([200, 201]).toContain(put.status);
    const list = await s.http("GET", "/creators");
    expect(list.body.totalCount).toBe(1);
  });

  it("sees an empty organization again after the reset", async () => {
    expect((await s.http("GET", "/creators")).body.totalCount).toBe(0);
    const t = s.context();
    const { listCreators } = await import("../../src/api/creators.js");
    expect((await listCreators(await t.ctx.api(), {})).totalCount).toBe(0);
  });

  it("spawns the built CLI aimed at the same sandbox", async () => {
    const r = await s.cli(["roster", "list", "--json"]);
    expect(r.exitCode).toBe(0);
    expect(r.json()).toEqual([]);
  });

  it("reports a non-JSON stdout with the text", async () => {
    const r = await s.run(["roster", "list"]);
    expect(() => r.json()).toThrow(/not JSON/);
  });
});

describe("withSandbox", () => {
  it("closes the sandbox whatever the test does", async () => {
    let url = "";
    await expect(
      withSandbox({ seed: "empty" }, async (f) => {
        url = f.url;
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    await expect(fetch(`${url}/api/partner/v1/me`)).rejects.toThrow();
  });
});
