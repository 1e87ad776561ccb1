import type { Route } from "../http.js";

export const webhooksRoutes: Route[] = [];
