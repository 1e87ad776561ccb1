import type { Route } from "../http.js";

export const redemptionsRoutes: Route[] = [];
