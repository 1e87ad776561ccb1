// The documented-values check: every answer of a Partner API route that a test's sandbox sends is
// parsed with the strict schemas of src/spec (what the spec documents: no other field, no other enum
// value, the right types), errors with the spec's error body and the status of their code. The
// harness (harness.ts) starts every sandbox with it and fails the test file after the sandbox closes
// if any answer did not match, naming the route, the status and what was wrong.
import type { z } from "zod";
import { z as zod } from "zod";
import type { AnswerHook } from "../../src/sandbox/server.js";
import { strictCampaigns } from "../../src/spec/campaigns.js";
import { strictCreators } from "../../src/spec/creators.js";
import { strictEvents } from "../../src/spec/events.js";
import { ERROR_STATUS, type ErrorCode } from "../../src/spec/kit.js";
import { strictLinks } from "../../src/spec/links.js";
import { strictMe } from "../../src/spec/me.js";
import { strictOffers } from "../../src/spec/offers.js";
import { strictRedemptions } from "../../src/spec/redemptions.js";
import { strictReports } from "../../src/spec/reports.js";
import { strictWebhooks } from "../../src/spec/webhooks.js";

const Envelope = strictEvents.TypedEnvelope as z.ZodType;
const RedemptionPage = {
  safeParse: (b: unknown) =>
    (b && typeof b === "object" && "range" in b
      ? strictRedemptions.RedemptionRangePage
      : strictRedemptions.RedemptionFeedPage
    ).safeParse(b),
};
const EventPage = zod.strictObject({ items: zod.array(Envelope), nextCursor: zod.string().nullable() });

type Checker = Pick<z.ZodType, "safeParse">;

/** The documented 2xx body of each API route, by "METHOD path" as routes.ts spells it; null: no body. */
export const DOCUMENTED: Record<string, Checker | null> = {
  "GET /me": strictMe.Me,
  "GET /creators": strictCreators.CreatorPage,
  "GET /creators/:externalId": strictCreators.Creator,
  "PUT /creators/:externalId": strictCreators.Creator,
  "POST /creators/batch": strictCreators.BatchResult,
  "GET /offers": strictOffers.OfferPage,
  "GET /offers/:baseGs1": strictOffers.Offer,
  "GET /campaigns": strictCampaigns.CampaignPage,
  "GET /campaigns/:id": strictCampaigns.Campaign,
  "POST /campaigns": strictCampaigns.Campaign,
  "PATCH /campaigns/:id": strictCampaigns.Campaign,
  "POST /campaigns/:id/status": strictCampaigns.Campaign,
  "GET /campaigns/:id/creators": strictLinks.ShareLinkPage,
  "GET /campaigns/:id/creators/:externalId": strictLinks.ShareLink,
  "POST /campaigns/:id/creators/:externalId": strictLinks.ShareLink,
  "PATCH /campaigns/:id/creators/:externalId": strictLinks.ShareLink,
  "POST /campaigns/:id/assignments": strictLinks.AssignmentAccepted,
  "GET /campaigns/:id/assignments/:jobId": strictLinks.AssignmentJob,
  "GET /redemptions": RedemptionPage,
  "GET /redemptions/:id": strictRedemptions.Redemption,
  "GET /reports/summary": strictReports.Summary,
  "GET /reports/creator-counts": strictReports.CreatorCounts,
  "GET /campaigns/:id/report": strictReports.CampaignReport,
  "GET /webhooks": strictWebhooks.WebhookList,
  "POST /webhooks": strictWebhooks.WebhookWithSecret,
  "GET /webhooks/:id": strictWebhooks.WebhookDetail,
  "PATCH /webhooks/:id": strictWebhooks.Webhook,
  "DELETE /webhooks/:id": null,
  "POST /webhooks/:id/rotate-secret": strictWebhooks.WebhookWithSecret,
  "POST /webhooks/:id/test": Envelope,
  "GET /events/types": strictEvents.EventTypes,
  "GET /events": EventPage,
  "GET /events/:id": Envelope,
};

const ErrorBody = zod.strictObject({
  error: zod.strictObject({
    code: zod.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    message: zod.string().min(1),
    details: zod.record(zod.string(), zod.array(zod.string())).optional(),
  }),
});

function issues(r: ReturnType<Checker["safeParse"]>): string | undefined {
  if (r.success) return undefined;
  return r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`)
    .join("; ");
}

/**
 * The cost stays low on long lists (a roster import's thousand-row batch answers, feed pages of a
 * thousand items): of a top-level `items` or `rows` list longer than 100, the first 100 entries and
 * every 7th after them are checked. A value that only some entries carry is still met in a long run
 * (a whole import, a whole export), which is where the long lists come from.
 */
function sampled(body: unknown): unknown {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  const b = body as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key of ["items", "rows"]) {
    const list = b[key];
    if (!Array.isArray(list) || list.length <= 100) continue;
    out ??= { ...b };
    out[key] = list.filter((_, i) => i < 100 || i % 7 === 0);
  }
  return out ?? body;
}

/** What is undocumented about one answer, or undefined when it is as the spec says. */
export function undocumented(name: string, status: number, raw: unknown): string | undefined {
  let body = raw;
  if (typeof raw === "string" || Buffer.isBuffer(raw)) {
    try {
      body = JSON.parse(raw.toString());
    } catch {
      return "the body is not JSON";
    }
  }
  if (status >= 400) {
    const bad = issues(ErrorBody.safeParse(body));
    if (bad) return bad;
    const code = (body as { error: { code: ErrorCode } }).error.code;
    return ERROR_STATUS[code] === status ? undefined : `${code} answered with status ${status}`;
  }
  const schema = DOCUMENTED[name];
  if (schema === undefined) return "a route the check does not know (add it to test/helpers/documented.ts)";
  if (schema === null) return body === undefined ? undefined : "a body where the spec documents none";
  return issues(schema.safeParse(sampled(body)));
}

/** A hook for startSandbox's onAnswer that keeps what was undocumented, and the list it fills. */
export function documentedValuesCheck(): { hook: AnswerHook; found: string[] } {
  const found: string[] = [];
  const hook: AnswerHook = (route, status, body) => {
    const name = `${route.method} ${route.path}`;
    const bad = undocumented(name, status, body);
    if (bad && found.length < 20) found.push(`${name} → ${status}: ${bad}`);
  };
  return { hook, found };
}

/** Throws when the check found anything (the harness calls it after the sandbox closed). */
export function assertDocumented(found: string[]): void {
  if (found.length === 0) return;
  throw new Error(
    `The sandbox answered with values the spec does not document (test/helpers/documented.ts):\n  ${found.join("\n  ")}`,
  );
}
