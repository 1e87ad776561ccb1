import { ok, type Route } from "../http.js";

export const meRoutes: Route[] = [
  {
    method: "GET",
    path: "/me",
    handler: ({ key, state }) =>
      ok({
        key: { name: key.name, canWrite: key.canWrite },
        organization: {
          id: state.org.id,
          name: state.org.name,
          reportingTimeZone: state.org.reportingTimeZone,
        },
      }),
  },
];
