// THE route table of the sandbox: every /api/partner/v1 route and the /_sandbox control routes.
// Each area declares its routes in handlers/<area>.ts; this file lists the areas.
import { campaignsRoutes } from "./handlers/campaigns.js";
import { controlRoutes } from "./handlers/control.js";
import { creatorRoutes } from "./handlers/creators.js";
import { eventsRoutes } from "./handlers/events.js";
import { linksRoutes } from "./handlers/links.js";
import { meRoutes } from "./handlers/me.js";
import { offerRoutes } from "./handlers/offers.js";
import { redemptionsRoutes } from "./handlers/redemptions.js";
import { reportsRoutes } from "./handlers/reports.js";
import { trafficRoutes } from "./handlers/traffic.js";
import { webhooksRoutes } from "./handlers/webhooks.js";
import type { Route } from "./http.js";

export function allRoutes(): Route[] {
  return [
    ...meRoutes,
    ...creatorRoutes,
    ...offerRoutes,
    ...campaignsRoutes,
    ...linksRoutes,
    ...redemptionsRoutes,
    ...reportsRoutes,
    ...webhooksRoutes,
    ...eventsRoutes,
    ...trafficRoutes,
    ...controlRoutes,
  ];
}
