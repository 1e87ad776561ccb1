import { looseMe, type Me } from "../spec/me.js";
import type { ApiClient } from "./client.js";

export function getMe(c: ApiClient): Promise<Me> {
  return c.call({ method: "GET", path: "/me", retry: "read", schema: looseMe.Me as never });
}
