// webhooks list | get | create | update | delete | rotate-secret | test | trigger | verify | forward | listen.
import type { Command } from "@commander-js/extra-typings";
import { DEFAULT_LISTEN_PORT } from "../webhooks/listen-port.js";
import {
  action,
  type CliRuntime,
  examples,
  limitOption,
  outputOptions,
  parseDuration,
  parseIntArg,
  lazyNoun,
} from "./define.js";

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerWebhooks = lazyNoun(
  (program: Command) =>
    program
      .command("webhooks")
      .alias("webhook")
      .description("register webhook endpoints, verify signatures and run a local receiver"),
  declareWebhooksVerbs,
);

function declareWebhooksVerbs(noun: Command, rt: CliRuntime): void {
  examples(noun, [
    "partner-cli webhooks create --url https://hooks.example.com/partner --events redemption.recorded --secret-file whsec.txt",
    "partner-cli webhooks listen --secret-file whsec.txt --port 8787",
  ]);

  const list = noun
    .command("list")
    .description("the organization's webhook endpoints (at most 5)")
    .addOption(limitOption("endpoints"));
  examples(list, ["partner-cli webhooks list", "partner-cli webhooks list --json"]);
  outputOptions(list);
  action(rt, list, () => import("../commands/webhooks/list.js"), "webhooksListRun");

  const get = noun
    .command("get")
    .argument("<id>", "webhook id")
    .description("one endpoint and its recent deliveries (newest first)");
  examples(get, ["partner-cli webhooks get 6f1c2d8e-0000-4000-8000-000000000000"]);
  outputOptions(get);
  action(rt, get, () => import("../commands/webhooks/get.js"), "webhooksGetRun");

  const create = noun
    .command("create")
    .alias("register")
    .description(
      "register an endpoint; its signing secret is shown once (into --secret-file, mode 0600, or on stdout)",
    )
    .option("--url <url>", "HTTPS URL of the receiver (a publicly reachable host)")
    .option("--events <types>", "event types, comma-separated (see: events types)")
    .option(
      "--secret-file <file>",
      "write the signing secret to FILE (a new regular file, created 0600; never printed; a symlink is refused)",
    )
    .option(
      "--force",
      "overwrite an existing --secret-file; register even if the URL already has an endpoint",
    )
    .option(
      "--dry-run",
      "check the URL, the event types and --secret-file, and show what would be registered; registers nothing, generates no secret, writes no file",
    );
  examples(create, [
    "partner-cli webhooks create --url https://hooks.example.com/partner --events redemption.recorded,code.issued --secret-file ~/.partner-webhook.secret",
    "partner-cli webhooks create --url https://hooks.example.com/partner --events campaign.status_changed --json",
    "partner-cli webhooks create --url https://hooks.example.com/partner --events redemption.recorded --secret-file whsec.txt --dry-run",
  ]);
  action(rt, create, () => import("../commands/webhooks/create.js"), "webhooksCreateRun");

  const update = noun
    .command("update")
    .argument("<id>", "webhook id")
    .description("change an endpoint's URL or event types, or pause/resume it")
    .option("--url <url>", "new URL (pending deliveries go there)")
    .option("--events <types>", "new event types, comma-separated (queued deliveries are still sent)")
    .option("--enable", "resume: deliveries queued while paused are sent")
    .option("--disable", "pause: new events stay in the log only");
  examples(update, [
    "partner-cli webhooks update 6f1c2d8e-0000-4000-8000-000000000000 --disable",
    "partner-cli webhooks update 6f1c2d8e-0000-4000-8000-000000000000 --events redemption.recorded,redemption.excluded",
  ]);
  action(rt, update, () => import("../commands/webhooks/update.js"), "webhooksUpdateRun");

  const del = noun
    .command("delete")
    .argument("<id>", "webhook id")
    .description("delete an endpoint and its queued deliveries (asks on a terminal; --yes otherwise)");
  examples(del, ["partner-cli webhooks delete 6f1c2d8e-0000-4000-8000-000000000000 --yes"]);
  action(rt, del, () => import("../commands/webhooks/delete.js"), "webhooksDeleteRun");

  const rotate = noun
    .command("rotate-secret")
    .argument("<id>", "webhook id")
    .description("replace the signing secret; the previous one keeps signing for 24 hours")
    .option(
      "--secret-file <file>",
      "write the new secret to FILE (created 0600; a symlink is refused); checked before the rotation",
    )
    .option(
      "--force",
      "replace an existing --secret-file: it then holds the new secret and, on a second line, the previous one (which keeps signing for 24 hours)",
    );
  examples(rotate, [
    "partner-cli webhooks rotate-secret 6f1c2d8e-0000-4000-8000-000000000000 --secret-file new.secret",
    "partner-cli webhooks rotate-secret 6f1c2d8e-0000-4000-8000-000000000000 --secret-file webhook.secret --force",
  ]);
  action(rt, rotate, () => import("../commands/webhooks/rotate-secret.js"), "webhooksRotateSecretRun");

  const test = noun
    .command("test")
    .argument("<id>", "webhook id")
    .description("send a sample event (sample: true) to one endpoint; --wait follows its delivery")
    .option("--type <type>", "event type of the sample")
    .option("--wait", "wait until the sample is delivered (exit 0) or fails (exit 3)")
    .option("--timeout <duration>", "with --wait: give up after this long (exit 8)", parseDuration, 60_000);
  examples(test, [
    "partner-cli webhooks test 6f1c2d8e-0000-4000-8000-000000000000 --type code.issued --wait",
  ]);
  action(rt, test, () => import("../commands/webhooks/test.js"), "webhooksTestRun");

  const trigger = noun
    .command("trigger")
    .argument("<type>", "event type of the sample (see: events types)")
    .description(
      "send a sample event to the endpoint (the only one, or --endpoint ID) and wait for its delivery: exit 0 delivered, 3 failed",
    )
    .option("--endpoint <id>", "the endpoint to send it to (needed when there are several)")
    .option("--timeout <duration>", "give up waiting after this long (exit 8)", parseDuration, 60_000);
  examples(trigger, [
    "partner-cli webhooks trigger code.issued",
    "partner-cli webhooks trigger redemption.recorded --endpoint 6f1c2d8e-0000-4000-8000-000000000000",
  ]);
  action(rt, trigger, () => import("../commands/webhooks/trigger.js"), "webhooksTriggerRun");

  const verify = noun
    .command("verify")
    .description(
      "check a Service-Signature header against the raw body: exit 0 valid, 3 invalid (with the reason)",
    )
    .option("--secret-file <file>", "the signing secret (two lines during a rotation)")
    .option("--header <value>", "the Service-Signature header value")
    .option("--body <file>", "the raw body bytes (default: stdin)")
    .option("--tolerance <seconds>", "largest clock difference accepted", parseIntArg(0, 86_400), 300);
  examples(verify, [
    'partner-cli webhooks verify --secret-file webhook.secret --header "$SIG" --body body.json',
    "cat body.json | partner-cli webhooks verify --secret-file webhook.secret --header 't=1763776800,v1=...'",
  ]);
  action(rt, verify, () => import("../commands/webhooks/verify.js"), "webhooksVerifyRun");

  const forward = noun
    .command("forward")
    .argument("<url>", "your app's webhook URL, e.g. http://localhost:3000/webhooks")
    .description(
      "send the organization's events to a local app as the service delivers them (signed, retried), from the event log: no public URL needed",
    )
    .option("--events <types>", "only these event types, comma-separated (default: all)")
    .option("--since <duration>", "start with the events of this span back from now (e.g. 1h)", parseDuration)
    .option("--from-now", "skip to the end of the log (the default on the first run)")
    .option(
      "--secret-file <file>",
      "sign with the secret in FILE (the format listen reads) instead of the session secret",
    )
    .option("--interval <duration>", "how often to poll the event log when idle", parseDuration, 2_000);
  examples(forward, [
    "partner-cli webhooks forward http://localhost:3000/webhooks",
    "partner-cli webhooks forward http://localhost:3000/webhooks --events redemption.recorded --since 1h --json",
  ]);
  action(rt, forward, () => import("../commands/webhooks/forward.js"), "webhooksForwardRun");

  const listen = noun
    .command("listen")
    .description(
      "run a local receiver: verify each delivery, append it durably to an NDJSON file before answering 2xx, once per event id",
    )
    .option("--secret-file <file>", "the signing secret (two lines during a rotation)")
    .option("--port <n>", `port to listen on (0: any free port)`, parseIntArg(0, 65_535), DEFAULT_LISTEN_PORT)
    .option("--host <address>", "address to listen on", "127.0.0.1")
    .option("--out <file>", "NDJSON event store (shared with events sync)", "events.ndjson")
    .option("--forward-to <url>", "after saving, also POST each delivery (raw body and headers) here")
    .option(
      "--register",
      "register an endpoint for this session (its secret then needs no file) and delete it on exit; an endpoint that already has the URL is used and kept",
    )
    .option(
      "--public-url <url>",
      "with --register: register this URL (a tunnel to the receiver) instead of the receiver's",
    )
    .option("--events <types>", "with --register: the new endpoint's event types (default: all)")
    .option("--max-body <bytes>", "largest body accepted (413 above)", parseIntArg(1), 1_048_576)
    .option("--tolerance <seconds>", "largest clock difference accepted", parseIntArg(0, 86_400), 300);
  examples(listen, [
    "partner-cli webhooks listen --register",
    "partner-cli webhooks listen --secret-file webhook.secret --port 8787",
    "partner-cli webhooks listen --secret-file webhook.secret --out /data/events.ndjson --forward-to http://127.0.0.1:3000/hooks",
  ]);
  action(rt, listen, () => import("../commands/webhooks/listen.js"), "webhooksListenRun");
}
