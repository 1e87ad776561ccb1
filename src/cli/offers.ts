// offers list | get: the offers the organization may build campaigns on.
import { type Command, Option } from "@commander-js/extra-typings";
import {
  action,
  type CliRuntime,
  examples,
  limitOption,
  outputOptions,
  parseIntArg,
  lazyNoun,
} from "./define.js";

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerOffers = lazyNoun(
  (program: Command) =>
    program
      .command("offers")
      .alias("offer")
      .description("read the coupon offers your organization may distribute"),
  declareOffersVerbs,
);

function declareOffersVerbs(offers: Command, rt: CliRuntime): void {
  examples(offers, ["partner-cli offers list --distributable --all", "partner-cli offers get 0012345000011"]);

  const list = offers
    .command("list")
    .description(
      "list offers: baseGs1, brand, title, state, distributable, savings, redemption dates, codes available, retailer rule",
    )
    .option("--brand <id-or-name>", "only offers of this brand (brand.id, or the exact brand name, any case)")
    .option(
      "--state <state>",
      "only offers in this state: available, not_yet_started, expired, temporarily_unavailable, not_distributable (other values are sent as given, with a warning)",
    )
    .option(
      "--distributable",
      "only offers that can be distributed now (canDistribute); filtered here, not by the API: within the page shown, or across the pages read with --all or --limit",
    )
    .addOption(new Option("--all", "read every page (default page size 200)").conflicts("page"))
    .addOption(limitOption("offers", " (from --page)"))
    .option("--page <n>", "page to show, from 0 (default 0)", parseIntArg(0))
    .option("--page-size <n>", "offers per page, 1 to 200 (default 50; 200 with --all)", parseIntArg(1, 200));
  examples(list, [
    "partner-cli offers list",
    "partner-cli offers list --state available --all",
    "partner-cli offers list --distributable --all --json",
    "partner-cli offers list --brand 6f1c0c1e-0000-4000-8000-000000000001 --page 1 --page-size 20",
  ]);
  outputOptions(list, { out: true });
  action(rt, list, () => import("../commands/offers/list.js"), "offersListRun");

  const get = offers
    .command("get")
    .description("show every field of one offer, with product barcodes and allowed retailers")
    .argument("<baseGs1>", "the offer's baseGs1 (kept as text: leading zeros matter)");
  examples(get, ["partner-cli offers get 0012345000011", "partner-cli offers get 0012345000011 --json"]);
  outputOptions(get);
  action(rt, get, () => import("../commands/offers/get.js"), "offersGetRun");
}
