import type { Route } from "../http.js";

export const reportsRoutes: Route[] = [];
