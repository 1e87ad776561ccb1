import { ok, type Handlers } from "../http.js";

export const meHandlers = {
  get: ({ key, state }) =>
    ok({
      key: { name: key.name, canWrite: key.canWrite },
      organization: {
        id: state.org.id,
        name: state.org.name,
        reportingTimeZone: state.org.reportingTimeZone,
      },
    }),
} satisfies Handlers;
