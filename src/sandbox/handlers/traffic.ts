import type { Route } from "../http.js";

export const trafficRoutes: Route[] = [];
