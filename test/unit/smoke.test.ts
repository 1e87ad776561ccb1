import { describe, expect, it } from "vitest";
import { run } from "../../src/main.js";
import { withSandbox } from "../helpers/harness.js";

describe("smoke", () => {
  it("me against a sandbox on port 0", async () => {
    await withSandbox({}, async (s) => {
      const { ctx, stdout } = s.context({ globals: { json: true } });
      const { meRun } = await import("../../src/commands/identity/me.js");
      await meRun({}, ctx);
      await ctx.close();
      expect(JSON.parse(stdout()).organization.name).toBe("Northwind Creators");
    });
  });
  it("unknown command is a usage error", async () => {
    const { PassThrough } = await import("node:stream");
    const code = await run(["nope"], {
      streams: {
        stdout: new PassThrough(),
        stderr: new PassThrough(),
        stdin: new PassThrough(),
        stdoutIsTTY: false,
        stderrIsTTY: false,
        stdinIsTTY: false,
      },
      env: {},
    });
    expect(code).toBe(2);
  });
});
