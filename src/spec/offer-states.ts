// The spec's offer states, in a module of their own without zod, so that the command declarations
// (src/cli/sandbox.ts) can list them without loading the schemas.
export const OFFER_STATES = [
  "available",
  "not_yet_started",
  "expired",
  "temporarily_unavailable",
  "not_distributable",
] as const;
