import { looseMe, type Me } from "../spec/me.js";
import { type ApiClient, dateHeader } from "./client.js";

export function getMe(c: ApiClient): Promise<Me> {
  return c.call({ method: "GET", path: "/me", retry: "read", schema: looseMe.Me as never });
}

/**
 * The service's clock: one GET /me (whatever its answer, a refused key's included) and its Date
 * header, with the local time halfway through the request. Undefined when the answer has no Date.
 */
export async function serviceClock(
  c: ApiClient,
  now: () => Date,
): Promise<{ service: Date; local: Date } | undefined> {
  const before = now().getTime();
  const res = await c.raw({ method: "GET", path: "/me", retry: "read" });
  const after = now().getTime();
  const service = dateHeader(res.headers);
  return service ? { service, local: new Date((before + after) / 2) } : undefined;
}
