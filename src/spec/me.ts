import { z } from "zod";
import { type Kit, kit } from "./kit.js";

function meSchemas(k: Kit) {
  const Me = k.obj({
    key: k.obj({ name: z.string(), canWrite: z.boolean() }),
    organization: k.obj({ id: z.string(), name: z.string(), reportingTimeZone: z.string() }),
  });
  return { Me };
}
export const strictMe = meSchemas(kit("strict"));
export const looseMe = meSchemas(kit("loose"));
export type Me = z.infer<typeof strictMe.Me>;
