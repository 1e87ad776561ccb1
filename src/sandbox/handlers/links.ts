import type { Route } from "../http.js";

export const linksRoutes: Route[] = [];
