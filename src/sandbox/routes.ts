// THE route table of the sandbox: every route, one line each, `METHOD path → handler`. API routes are
// served under /api/partner/v1 (API_PREFIX), control routes under /_sandbox (CONTROL_PREFIX); the
// handlers live in handlers/<area>.ts. To add an endpoint: write its handler there, add its line here.
import { campaignHandlers } from "./handlers/campaigns.js";
import { controlHandlers } from "./handlers/control.js";
import { creatorHandlers } from "./handlers/creators.js";
import { eventHandlers } from "./handlers/events.js";
import { linkHandlers } from "./handlers/links.js";
import { meHandlers } from "./handlers/me.js";
import { offerHandlers } from "./handlers/offers.js";
import { redemptionHandlers } from "./handlers/redemptions.js";
import { reportHandlers } from "./handlers/reports.js";
import { trafficHandlers } from "./handlers/traffic.js";
import { webhookHandlers } from "./handlers/webhooks.js";
import type { Handler, Method, Route } from "./http.js";

const api = (method: Method, path: string, handler: Handler): Route => ({
  method,
  path,
  kind: "api",
  handler,
});
const control = (method: Method, path: string, handler: Handler): Route => ({
  method,
  path,
  kind: "control",
  handler,
});

export const ROUTES: readonly Route[] = [
  // Partner API (/api/partner/v1)
  api("GET", "/me", meHandlers.get),
  api("GET", "/creators", creatorHandlers.list),
  api("GET", "/creators/:externalId", creatorHandlers.get),
  api("PUT", "/creators/:externalId", creatorHandlers.put),
  api("POST", "/creators/batch", creatorHandlers.batch),
  api("GET", "/offers", offerHandlers.list),
  api("GET", "/offers/:baseGs1", offerHandlers.get),
  api("GET", "/campaigns", campaignHandlers.list),
  api("GET", "/campaigns/:id", campaignHandlers.get),
  api("POST", "/campaigns", campaignHandlers.create),
  api("PATCH", "/campaigns/:id", campaignHandlers.patch),
  api("POST", "/campaigns/:id/status", campaignHandlers.setStatus),
  api("GET", "/campaigns/:id/creators", linkHandlers.list),
  api("GET", "/campaigns/:id/creators/:externalId", linkHandlers.get),
  api("POST", "/campaigns/:id/creators/:externalId", linkHandlers.create),
  api("PATCH", "/campaigns/:id/creators/:externalId", linkHandlers.patch),
  api("POST", "/campaigns/:id/assignments", linkHandlers.queueJob),
  api("GET", "/campaigns/:id/assignments/:jobId", linkHandlers.getJob),
  api("GET", "/redemptions", redemptionHandlers.list),
  api("GET", "/redemptions/:id", redemptionHandlers.get),
  api("GET", "/reports/summary", reportHandlers.summary),
  api("GET", "/reports/creator-counts", reportHandlers.creatorCounts),
  api("GET", "/campaigns/:id/report", reportHandlers.campaignReport),
  api("GET", "/webhooks", webhookHandlers.list),
  api("POST", "/webhooks", webhookHandlers.create),
  api("GET", "/webhooks/:id", webhookHandlers.get),
  api("PATCH", "/webhooks/:id", webhookHandlers.patch),
  api("DELETE", "/webhooks/:id", webhookHandlers.remove),
  api("POST", "/webhooks/:id/rotate-secret", webhookHandlers.rotateSecret),
  api("POST", "/webhooks/:id/test", webhookHandlers.test),
  api("GET", "/events/types", eventHandlers.types),
  api("GET", "/events", eventHandlers.list),
  api("GET", "/events/:id", eventHandlers.get),

  // Sandbox control (/_sandbox): not part of the Partner API
  control("POST", "/campaigns/:id/fail-next-job", linkHandlers.failNextJob),
  control("POST", "/simulate", trafficHandlers.simulate),
  control("POST", "/views", trafficHandlers.view),
  control("POST", "/organization", trafficHandlers.organization),
  control("GET", "/clock", controlHandlers.clock),
  control("GET", "/status", controlHandlers.status),
  control("POST", "/advance", controlHandlers.advance),
  control("POST", "/reset", controlHandlers.reset),
  control("GET", "/faults", controlHandlers.faults),
  control("POST", "/faults", controlHandlers.setFaults),
  control("DELETE", "/faults", controlHandlers.clearFaults),
  control("POST", "/brands/:brandId/access", controlHandlers.brandAccess),
  control("POST", "/offers/:baseGs1", controlHandlers.setOffer),
];
