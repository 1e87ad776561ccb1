// Control routes of shopper traffic (not part of the Partner API): simulate traffic, record one link
// open, and set the organization's reporting time zone and alert recipients.
import { z } from "zod";
import { isTimeZone } from "../../spec/days.js";
import { invalid, notFound } from "../errors.js";
import { ok, type Handlers } from "../http.js";
import { recordView, SimulateBody, simulate } from "../simulate.js";
import { parseBody } from "./control.js";
import { findLinkByShortCode } from "../domain/links.js";

export const trafficHandlers = {
  simulate: (req) => ok(simulate(req.sb, req.state, parseBody(SimulateBody, req))),
  // One link open, as a shopper's browser would make it: counted once per network origin per link
  // per reporting day. The origin defaults to the caller's address.
  view: (req) => {
    const body = parseBody(
      z.strictObject({ shortCode: z.string().min(1), origin: z.string().min(1).max(100).optional() }),
      req,
    );
    const found = findLinkByShortCode(req.state, body.shortCode);
    if (!found) throw notFound("Share link");
    const origin = body.origin ?? req.remoteAddress;
    recordView(req.sb, req.state, found.campaign.id, found.link.externalId, origin);
    return ok({
      campaignId: found.campaign.id,
      externalId: found.link.externalId,
      origin,
      at: req.sb.clock.iso(),
    });
  },
  organization: (req) => {
    const body = parseBody(
      z.strictObject({
        reportingTimeZone: z.string().min(1).optional(),
        alertRecipients: z.array(z.string().min(3).max(254)).max(20).optional(),
      }),
      req,
    );
    if (body.reportingTimeZone !== undefined && !isTimeZone(body.reportingTimeZone))
      throw invalid(`${body.reportingTimeZone} is not an IANA time-zone name.`, {
        reportingTimeZone: ["must be an IANA time-zone name"],
      });
    const org = req.state.updateOrg((o) => {
      if (body.reportingTimeZone !== undefined) o.reportingTimeZone = body.reportingTimeZone;
      if (body.alertRecipients !== undefined) o.alertRecipients = [...body.alertRecipients];
    });
    return ok({
      id: org.id,
      name: org.name,
      reportingTimeZone: org.reportingTimeZone,
      alertRecipients: org.alertRecipients,
    });
  },
} satisfies Handlers;
