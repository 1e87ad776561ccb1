import type { Route } from "../http.js";

export const eventsRoutes: Route[] = [];
