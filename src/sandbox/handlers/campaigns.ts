import type { Route } from "../http.js";

export const campaignsRoutes: Route[] = [];
