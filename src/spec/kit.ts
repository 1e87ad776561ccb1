// One schema source, two strictness modes.
// "strict": what the sandbox promises (tests parse every sandbox response with it).
// "loose": what the client accepts (unknown fields kept, unknown enum values accepted; spec: Versioning).
import { z } from "zod";

export type Mode = "strict" | "loose";

export interface Kit {
  obj<T extends z.core.$ZodLooseShape>(shape: T): z.ZodObject<T>;
  en<const T extends readonly [string, ...string[]]>(values: T): z.ZodType<T[number]>;
}

export function kit(mode: Mode): Kit {
  return {
    obj: (shape) => (mode === "strict" ? z.strictObject(shape) : z.looseObject(shape)) as never,
    en: (values) => (mode === "strict" ? z.enum(values) : z.string()) as never,
  };
}

/** `YYYY-MM-DDThh:mm:ssZ` (fractions tolerated on read). */
export const Timestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, "expected a UTC timestamp");
/** `YYYY-MM-DD`. */
export const CalendarDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD");

export function pageOf<T extends z.ZodType>(k: Kit, item: T) {
  return k.obj({
    items: z.array(item),
    page: z.number().int(),
    pageSize: z.number().int(),
    totalCount: z.number().int(),
  });
}

export const ErrorBody = z.object({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.array(z.string())).optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Error codes of the spec (Errors table). */
export const ERROR_STATUS = {
  validation_failed: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unexpected_error: 500,
  clearing_network_unavailable: 502,
  not_configured: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
