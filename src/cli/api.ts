// api METHOD PATH: a raw request to any endpoint, with the current key and base URL (like gh api).
import { type Command, Option } from "@commander-js/extra-typings";
import { action, type CliRuntime, examples } from "./define.js";
import { notes } from "./help.js";

export function registerApi(program: Command, rt: CliRuntime): void {
  // -F and -f share one list, so their order on the command line is kept (key[]=v appends in order).
  const params: { text: string; typed: boolean }[] = [];
  const param = (typed: boolean) => (text: string) => {
    params.push({ text, typed });
    return params;
  };
  const api = program
    .command("api")
    .description(
      "send a request to any endpoint of the Partner API with the current key and print the answer (raw passthrough, like gh api)",
    )
    .argument("<method>", "GET, POST, PUT, PATCH or DELETE")
    .argument(
      "<path>",
      "path below /api/partner/v1, with or without its leading slash and with a query string if you like (/creators?active=true); not a full URL. On a sandbox, /_sandbox/... reaches its control routes",
    )
    .option(
      "-F, --field <key=value>",
      "a typed parameter: true, false, null and numbers are sent as JSON, anything else as text; key[sub]=v nests, key[]=v appends to a list (repeatable)",
      param(true),
    )
    .option(
      "-f, --raw-field <key=value>",
      "a text parameter, sent as a string whatever it looks like (identifiers, codes) (repeatable)",
      param(false),
    )
    .option(
      "--input <file>",
      "the request body: a JSON file, or - for stdin (then -f/-F go to the query string)",
    )
    .option(
      "--paginate",
      "GET every page of a paged list ({items,page,pageSize,totalCount}) or feed ({items,nextCursor}) and print all the items",
    )
    .addOption(
      new Option(
        "--format <format>",
        "json: one document (with --paginate one array); ndjson: one line per item",
      )
        .choices(["json", "ndjson"])
        .default("json"),
    )
    .option("--include", "print the HTTP status line and the response headers before the body");
  examples(api, [
    "partner-cli api GET /me",
    "partner-cli api GET creators -F active=true --paginate --jq '.[].externalId'",
    "partner-cli api PUT /creators/cr-001 -f name='Ada Lovelace' -f email=ada@example.com",
    "partner-cli api GET /redemptions -F limit=1000 --paginate --format ndjson",
    `echo '{"creators":[{"externalId":"cr-100","name":"Grace Hopper"}]}' | partner-cli api POST /creators/batch --input -`,
    "partner-cli api GET /offers --include --fields totalCount",
    "partner-cli --sandbox api POST /_sandbox/advance -F duration=2h",
  ]);
  notes(
    api,
    `
Parameters (-f, -F) go to the query string for GET and DELETE and make a JSON body for POST, PUT
and PATCH (with --input they go to the query string). The answer's body is printed on stdout as the
service sent it; --fields and --jq work on it. An error answer's body is printed on stdout too, its
message on stderr, and the exit code is the one for that status (400 → 2, 401/403 → 4, 404 → 5,
409 → 6, 429/502/503 → 7). GET is retried like every read; other methods are retried only when the
failure shows that nothing was applied (429, 502, 503, a connection that was never made): a write
whose outcome is uncertain is never repeated. The API key is sent, never printed.

A PATH under /_sandbox goes to the sandbox's own control routes (docs/sandbox.md), only when the
target is a sandbox: the embedded one, or a served one reached with one of its keys (sk_sandbox_...,
rk_sandbox_...). For any other target it is refused (exit 2) and nothing is sent.
`,
  );
  action(rt, api, () => import("../commands/api/api.js"), "apiRun", {
    adapt: (o) => ({ ...o, params }),
  });
}
