// sandbox start | reset | advance | simulate: the local, stateful implementation of the Partner API.
// Declarations only; the run functions live in src/commands/sandbox/ and load lazily.
import { type Command, InvalidArgumentError, Option } from "@commander-js/extra-typings";
import { action, type CliRuntime, examples, parseDuration, parseIntArg } from "./define.js";
import { notes } from "./help.js";

export const DEFAULT_SANDBOX_PORT = 4010;

function parseRate(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 0)
    throw new InvalidArgumentError("expected a whole number of requests per second");
  return n;
}

export function registerSandbox(program: Command, rt: CliRuntime): void {
  const sandbox = program
    .command("sandbox")
    .description(
      "the local sandbox: a faithful, stateful Partner API on your machine (start, reset, advance, simulate)",
    );
  notes(
    sandbox,
    "\nWith no profile and no PARTNER_API_KEY, commands run against the embedded sandbox at a terminal;\n" +
      "scripts choose it with --sandbox or PARTNER_SANDBOX=1. reset, advance and simulate act on the\n" +
      "sandbox the command targets: the embedded one, or a served one reached by its base URL.\n",
  );
  examples(sandbox, [
    "partner-cli sandbox start --port 4010",
    "partner-cli sandbox advance 2h",
    "partner-cli sandbox reset --yes",
  ]);

  const start = sandbox
    .command("start")
    .description(
      "serve the sandbox over HTTP until Ctrl-C or SIGTERM; prints its base URL, write key and read-only key",
    )
    .option(
      "--port <n>",
      `port to listen on (0 picks a free one)`,
      parseIntArg(0, 65535),
      DEFAULT_SANDBOX_PORT,
    )
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--data-dir <dir>", "keep state in this directory across restarts (default: in memory only)")
    .addOption(
      new Option("--seed <kind>", "starting data when the data dir holds none: demo roster or empty roster")
        .choices(["demo", "empty"])
        .default("demo"),
    )
    .option("--latency <ms>", "add this many milliseconds to every API request", parseIntArg(0, 600_000))
    .option(
      "--faults <spec>",
      "inject faults at random: KIND=RATE,... with KIND one of 429, 502, 500, reset, reset-after, stall and RATE 0..1",
    )
    .option(
      "--rate-limit <n>",
      "answer 429 rate_limited beyond N requests per second per key (0 = off)",
      parseRate,
    )
    .option("--strict-webhook-urls", "require public https webhook URLs, as a real service would");
  examples(start, [
    "partner-cli sandbox start",
    "partner-cli sandbox start --port 0 --json",
    "partner-cli sandbox start --data-dir ./sandbox-data --seed empty",
    "partner-cli sandbox start --latency 200 --faults 429=0.1,502=0.05,500=0.02 --rate-limit 20",
  ]);
  action(rt, start, () => import("../commands/sandbox/start.js"), "sandboxStartRun");

  const reset = sandbox
    .command("reset")
    .description(
      "wipe the sandbox's data back to a seed (keys, organizations and brand ids are kept); asks first",
    )
    .addOption(
      new Option("--seed <kind>", "demo roster or empty roster").choices(["demo", "empty"]).default("demo"),
    );
  examples(reset, ["partner-cli sandbox reset", "partner-cli sandbox reset --seed empty --yes"]);
  action(rt, reset, () => import("../commands/sandbox/reset.js"), "sandboxResetRun");

  const advance = sandbox
    .command("advance")
    .description("move the sandbox clock forward (event times, retries, presets and retention follow it)")
    .argument("<duration>", 'how far: "90s", "15m", "2h", "1d", "1h30m" or milliseconds', parseDuration);
  examples(advance, ["partner-cli sandbox advance 2h", "partner-cli sandbox advance 1d --json"]);
  action(rt, advance, () => import("../commands/sandbox/advance.js"), "sandboxAdvanceRun", {
    args: ["durationMs"],
  });

  const count = <F extends string>(flag: F, what: string) =>
    new Option(`--${flag} <n>` as `--${F} <n>`, what).argParser(parseIntArg(0, 1_000_000));
  const simulate = sandbox
    .command("simulate")
    .description(
      "simulate shopper traffic on the sandbox: link views, claims, redemptions and corrections; shortfalls are warnings, nothing generated at all is exit 3",
    )
    .option(
      "--campaign <id-or-ref>",
      "only this campaign (id or external reference; unknown: exit 5); default: active campaigns",
    )
    .addOption(count("views", "share-link views"))
    .addOption(count("claims", "coupon claims"))
    .addOption(count("redemptions", "redemptions"))
    .addOption(count("test-codes", "staff test codes issued (never redeemed, no events)"))
    .addOption(count("test-redemptions", "redemptions of staff test codes (countingState test_code)"))
    .addOption(count("exclusions", "redemptions later excluded (corrections)"))
    .addOption(
      count("restorations", "excluded redemptions restored (including exclusions made by the same call)"),
    )
    .option("--reason <text>", "reason recorded with the exclusions and restorations")
    .option(
      "--days <n>",
      "spread the traffic over today and the N-1 days before (default 1)",
      parseIntArg(1, 1000),
    )
    .option(
      "--no-events",
      "leave out the per-item events (a bench that needs only rows); the event log is then incomplete, as the answer and the sandbox's status say",
    )
    .option("--seed <n>", "random seed, for repeatable traffic", parseIntArg(0));
  examples(simulate, [
    "partner-cli sandbox simulate --views 200 --claims 40 --redemptions 12",
    "partner-cli sandbox simulate --campaign spring-oats --redemptions 5 --exclusions 1 --seed 7 --json",
  ]);
  action(rt, simulate, () => import("../commands/sandbox/simulate.js"), "sandboxSimulateRun");
}
