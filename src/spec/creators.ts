// Creator resource and the write rules of the Creator table, shared by the CSV pre-check and the sandbox.
import { z } from "zod";
import { type Kit, kit, pageOf, Timestamp } from "./kit.js";
import { LIMITS } from "./limits.js";

function creatorSchemas(k: Kit) {
  const Creator = k.obj({
    externalId: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    handle: z.string().nullable(),
    active: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  });
  const BatchRow = k.obj({
    index: z.number().int(),
    externalId: z.string(),
    // The spec's row outcomes; a row that changed nothing reports "updated" and the summary counts it
    // `unchanged` (docs/sandbox.md). Clients accept other words too (loose kit).
    outcome: k.en(["added", "updated", "rejected"] as const),
    reasons: z.array(z.string()),
  });
  const BatchResult = k.obj({
    summary: k.obj({
      rows: z.number().int(),
      added: z.number().int(),
      updated: z.number().int(),
      unchanged: z.number().int(),
      rejected: z.number().int(),
    }),
    rows: z.array(BatchRow),
  });
  return { Creator, CreatorPage: pageOf(k, Creator), BatchRow, BatchResult };
}
export const strictCreators = creatorSchemas(kit("strict"));
export const looseCreators = creatorSchemas(kit("loose"));
export type Creator = z.infer<typeof strictCreators.Creator>;
export type BatchResult = z.infer<typeof strictCreators.BatchResult>;
export type BatchRow = z.infer<typeof strictCreators.BatchRow>;

const oneLine = (s: string) => !/[\r\n\u2028\u2029]/.test(s);
/** Length limits count characters (code points), so an emoji counts once. */
const maxChars = (n: number) => (s: string) => s.length <= n || [...s].length <= n;
// Pragmatic address check: one @, no spaces, a dotted domain with no empty labels.
const EMAIL_RE =
  /^[^\s@"<>(),;:\\[\]]+(\.[^\s@"<>(),;:\\[\]]+)*@([A-Za-z0-9\u00a1-\uffff](-*[A-Za-z0-9\u00a1-\uffff])*\.)+[A-Za-z\u00a1-\uffff]{2,}$/u;

export const ExternalIdRule = z
  .string({ error: "must be a string" })
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .min(1, "is required")
      .refine(
        maxChars(LIMITS.creatorExternalIdMax),
        `must be at most ${LIMITS.creatorExternalIdMax} characters`,
      )
      .refine(oneLine, "must be one line"),
  );

const NameRule = z
  .string({ error: "must be a string" })
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .min(1, "must not be blank")
      .refine(maxChars(LIMITS.creatorNameMax), `must be at most ${LIMITS.creatorNameMax} characters`)
      .refine(oneLine, "must be one line"),
  );

const EmailRule = z
  .string({ error: "must be a string or null" })
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .refine(maxChars(LIMITS.creatorEmailMax), `must be at most ${LIMITS.creatorEmailMax} characters`)
      .refine((s) => s === "" || EMAIL_RE.test(s), "must be a valid email address"),
  );

const HandleRule = z
  .string({ error: "must be a string or null" })
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .refine(maxChars(LIMITS.creatorHandleMax), `must be at most ${LIMITS.creatorHandleMax} characters`)
      .refine(oneLine, "must be one line"),
  );

/**
 * A creator write (batch row or PUT body). Field semantics after parsing:
 * undefined = keep, null = clear (email/handle; "" is turned into null), value = set.
 */
export const CreatorWrite = z.object({
  name: NameRule.nullish(),
  email: EmailRule.nullish().transform((v) => (v === "" ? null : v)),
  handle: HandleRule.nullish().transform((v) => (v === "" ? null : v)),
  active: z.boolean({ error: "must be true or false" }).optional(),
});
export type CreatorWrite = z.infer<typeof CreatorWrite>;

export const CreatorBatchItem = CreatorWrite.extend({ externalId: ExternalIdRule });
export type CreatorBatchItem = z.infer<typeof CreatorBatchItem>;

/** Turns zod issues into "field: message" reasons, as the batch endpoint reports them. */
export function issueReasons(error: z.ZodError): string[] {
  return error.issues.map((i) => {
    const field = i.path.map(String).join(".");
    return field ? `${field}: ${i.message}` : i.message;
  });
}

/** Issues keyed by field path, the shape of `error.details`. */
export function issueDetails(error: z.ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const i of error.issues) {
    const field = i.path.map(String).join(".") || "body";
    const list = out[field] ?? [];
    list.push(i.message);
    out[field] = list;
  }
  return out;
}

/** Checks one creator write as the service does; `reasons` is empty when it passes. */
export function checkCreatorWrite(
  raw: unknown,
  opts: { withExternalId: boolean },
): { ok: true; value: CreatorBatchItem } | { ok: false; reasons: string[] } {
  const schema = opts.withExternalId
    ? CreatorBatchItem
    : CreatorWrite.extend({ externalId: z.string().optional() });
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data as CreatorBatchItem };
  return { ok: false, reasons: issueReasons(r.error) };
}

/**
 * The batch-item rules of CreatorBatchItem as plain code, for hot loops (a roster import checks every
 * row): the parsed item when `raw` certainly passes, or undefined, in which case the caller runs
 * `checkCreatorWrite` for the exact reasons. It never accepts what the schema rejects, and what it
 * returns equals the schema's output.
 */
/** A trimmed text field that passes its length and one-line rules, else undefined (fastCreatorBatchItem). */
function fastText(v: unknown, max: number, blankOk: boolean, lineRule: boolean): string | undefined {
  if (typeof v !== "string") return undefined;
  const t = v.trim();
  if (!blankOk && t === "") return undefined;
  if ((t.length > max && [...t].length > max) || (lineRule && !oneLine(t))) return undefined;
  return t;
}

/**
 * The same rules field by field, for a string value (a roster import's cells): the value the schema
 * gives when it certainly passes (trimmed; "" for a blank email or handle, which the schema turns into
 * null), else undefined (the schema decides).
 */
export const fastCreatorField = {
  externalId: (v: string) => fastText(v, LIMITS.creatorExternalIdMax, false, true),
  name: (v: string) => fastText(v, LIMITS.creatorNameMax, false, true),
  email: (v: string): string | undefined => {
    const email = fastText(v, LIMITS.creatorEmailMax, true, false);
    return email === undefined || (email !== "" && !EMAIL_RE.test(email)) ? undefined : email;
  },
  handle: (v: string) => fastText(v, LIMITS.creatorHandleMax, true, true),
};

export function fastCreatorBatchItem(raw: {
  externalId: unknown;
  name?: unknown;
  email?: unknown;
  handle?: unknown;
  active?: unknown;
}): CreatorBatchItem | undefined {
  if (typeof raw.externalId !== "string") return undefined;
  const externalId = fastCreatorField.externalId(raw.externalId);
  if (externalId === undefined) return undefined;
  const out = { externalId } as CreatorBatchItem;
  if (raw.name === null) out.name = null;
  else if (raw.name !== undefined) {
    const name = typeof raw.name === "string" ? fastCreatorField.name(raw.name) : undefined;
    if (name === undefined) return undefined;
    out.name = name;
  }
  for (const f of ["email", "handle"] as const) {
    const v = raw[f];
    if (v === null) out[f] = null;
    else if (v !== undefined) {
      const t = typeof v === "string" ? fastCreatorField[f](v) : undefined;
      if (t === undefined) return undefined;
      out[f] = t === "" ? null : t;
    }
  }
  if (raw.active !== undefined) {
    if (typeof raw.active !== "boolean") return undefined;
    out.active = raw.active;
  }
  return out;
}
