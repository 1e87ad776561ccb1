// Ctrl-C through the built bin: SIGINT during a long Retry-After wait ends the command at once
// (the client's waits listen to the run's abort signal), with status 130 as a shell sees it.
import { execa } from "execa";
import { expect, it } from "vitest";
import { BIN } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";
import { until } from "../helpers/wait.js";

const s = useSandbox();

it("SIGINT during a 30 s Retry-After wait ends the command promptly (status 130)", async () => {
  await s.http("POST", "/faults", {
    control: true,
    body: { next: ["429"], retryAfterSeconds: 30, pathPrefix: "/offers" },
  });
  const child = execa("node", [BIN, "offers", "list"], {
    reject: false,
    stdin: "ignore",
    env: {
      NO_COLOR: "1",
      PARTNER_CLI_CONFIG_DIR: tempDir(),
      PARTNER_BASE_URL: s.url,
      PARTNER_API_KEY: s.writeKey,
      // The trace says when the client starts its Retry-After wait.
      PARTNER_DEBUG: "1",
    },
  });
  let said = "";
  child.stderr!.on("data", (c) => {
    said += c;
  });
  // Interrupt once the client waits out the 429's Retry-After (its trace says so).
  await until(() => /retrying in \d+ ms/.test(said), 20_000, "the Retry-After wait");
  child.kill("SIGINT");
  const r = await child;
  // The client's wait ended through the run's abort signal (CancelledError → "Interrupted.").
  expect(String(r.stderr)).toMatch(/^Interrupted\.$/m);
  // conf's when-exit re-sends the signal at once; main ignores that echo, so the command ends
  // through its own cleanup with exit code 130.
  // Without the abort the wait would last 30 s and the retried request succeed (exit 0).
  expect(r.exitCode).toBe(130);
  expect(String(r.stdout)).toBe("");
}, 40_000);
