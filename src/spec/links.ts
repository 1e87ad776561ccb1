// Share links, assignment jobs and selection summaries (spec: Share link, Assignment job, Selection
// summary tables; Share links and assignments endpoints; Limits). Shared by client and sandbox.
import { z } from "zod";
import { type Kit, kit, pageOf, Timestamp } from "./kit.js";
import { LIMITS } from "./limits.js";

const JOB_STATUSES = ["queued", "running", "completed", "failed"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
const ASSIGNMENT_SCOPES = ["roster", "selected"] as const;
export type AssignmentScope = (typeof ASSIGNMENT_SCOPES)[number];

/** Eight letters and digits in two groups of four: `AB12-CD34`. */
export const SHORT_CODE_RE = /^[A-Z0-9]{4}-[A-Z0-9]{4}$/;

/** A short code as typed (with or without dash or space, any case) → `ABCD-1234`, or undefined. */
export function normalizeShortCode(input: string): string | undefined {
  const s = input.replace(/[\s-]/g, "").toUpperCase();
  return /^[A-Z0-9]{8}$/.test(s) ? `${s.slice(0, 4)}-${s.slice(4)}` : undefined;
}

function linkSchemas(k: Kit, mode: "strict" | "loose") {
  const CreatorRef = k.obj({ externalId: z.string(), name: z.string() });
  const ShareLink = k.obj({
    creator: CreatorRef,
    campaignId: z.string(),
    shareUrl: z.string(),
    shortCode: mode === "strict" ? z.string().regex(SHORT_CODE_RE) : z.string(),
    statsUrl: z.string(),
    active: z.boolean(),
    activeOnRoster: z.boolean(),
    assignedAt: Timestamp,
    deactivatedAt: Timestamp.nullable(),
  });
  const AssignmentJob = k.obj({
    id: z.string(),
    campaignId: z.string(),
    status: k.en(JOB_STATUSES),
    scope: k.en(ASSIGNMENT_SCOPES),
    totalCount: z.number().int(),
    assignedCount: z.number().int(),
    failedCount: z.number().int(),
    lastError: z.string().nullable(),
    unassignableExternalIds: z.array(z.string()),
    createdAt: Timestamp,
    startedAt: Timestamp.nullable(),
    completedAt: Timestamp.nullable(),
  });
  const UnmatchedEntry = k.obj({ externalId: z.string(), reason: z.string() });
  const SelectionSummary = k.obj({
    scope: k.en(ASSIGNMENT_SCOPES),
    identifiersRead: z.number().int().nullable(),
    matched: z.number().int(),
    alreadyAssigned: z.number().int(),
    toAssign: z.number().int(),
    unmatched: z.number().int(),
    unmatchedSample: z.array(UnmatchedEntry).max(LIMITS.unmatchedSampleMax),
  });
  const AssignmentAccepted = k.obj({ job: AssignmentJob, selection: SelectionSummary });
  return {
    CreatorRef,
    ShareLink,
    ShareLinkPage: pageOf(k, ShareLink),
    AssignmentJob,
    UnmatchedEntry,
    SelectionSummary,
    AssignmentAccepted,
  };
}
export const strictLinks = linkSchemas(kit("strict"), "strict");
export const looseLinks = linkSchemas(kit("loose"), "loose");
export type ShareLink = z.infer<typeof strictLinks.ShareLink>;
export type AssignmentJob = z.infer<typeof strictLinks.AssignmentJob>;
export type SelectionSummary = z.infer<typeof strictLinks.SelectionSummary>;
export type AssignmentAccepted = z.infer<typeof strictLinks.AssignmentAccepted>;
export type UnmatchedEntry = z.infer<typeof strictLinks.UnmatchedEntry>;

// ---------------------------------------------------------------------------------------------
// Request bodies

/** PATCH /campaigns/{id}/creators/{externalId}: {active: boolean}. */
export const LinkPatchBody = z.object(
  {
    active: z.boolean({
      error: (iss) => (iss.input === undefined ? "is required" : "must be true or false"),
    }),
  },
  { error: "must be a JSON object" },
);
export type LinkPatchBody = z.infer<typeof LinkPatchBody>;

/**
 * POST /campaigns/{id}/assignments: {externalIds: 1..10,000 strings, scope optional "selected"}
 * or {scope: "roster"} without externalIds. Parsed into a discriminated value.
 */
export const AssignmentBody = z
  .object(
    {
      externalIds: z
        .array(z.string({ error: "must be a string" }), { error: "must be an array of strings" })
        .optional(),
      scope: z.enum(ASSIGNMENT_SCOPES, { error: "must be roster or selected" }).optional(),
    },
    { error: "must be a JSON object" },
  )
  .superRefine((b, ctx) => {
    const ids = b.externalIds;
    if (b.scope === "roster") {
      if (ids !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["externalIds"],
          message: 'must be left out with scope "roster"',
        });
      return;
    }
    if (ids === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["externalIds"],
        message: 'is required unless scope is "roster"',
      });
      return;
    }
    if (ids.length < 1 || ids.length > LIMITS.assignmentIdsMax)
      ctx.addIssue({ code: "custom", path: ["externalIds"], message: "must hold 1 to 10,000 ids" });
  })
  .transform(
    (b): AssignmentRequest =>
      b.scope === "roster" ? { scope: "roster" } : { scope: "selected", externalIds: b.externalIds ?? [] },
  );
export type AssignmentRequest = { scope: "roster" } | { scope: "selected"; externalIds: string[] };
export type AssignmentInput = z.input<typeof AssignmentBody>;
