// Creators: list, get, PUT upsert and the batch endpoint, with every rule of the Creator table.
import type { Creator } from "../../spec/creators.js";
import {
  CreatorWrite,
  checkCreatorWrite,
  ExternalIdRule,
  issueDetails,
  issueReasons,
} from "../../spec/creators.js";
import { LIMITS } from "../../spec/limits.js";
import { invalid, notFound } from "../errors.js";
import { ok, type Handlers } from "../http.js";
import { boolParam, pageByKey, pageParams, timestampParam } from "../paging.js";
import type { OrgState } from "../store.js";

type Outcome = "added" | "updated" | "unchanged";

/** Applies a checked write to the roster. Returns the outcome, or reasons when it must be rejected. */
function upsertCreator(
  state: OrgState,
  externalId: string,
  w: CreatorWrite,
  nowIso: string,
): { outcome: Outcome; creator: Creator } | { reasons: string[] } {
  const existing = state.creators.get(externalId);
  if (!existing) {
    if (w.name === undefined || w.name === null) return { reasons: ["name: is required for a new creator"] };
    const creator: Creator = {
      externalId,
      name: w.name,
      email: w.email ?? null,
      handle: w.handle ?? null,
      active: w.active ?? true,
      createdAt: nowIso,
      updatedAt: nowIso,
    };
    state.creators.set(externalId, creator);
    return { outcome: "added", creator };
  }
  const next: Creator = {
    ...existing,
    name: w.name ?? existing.name,
    email: w.email === undefined ? existing.email : w.email,
    handle: w.handle === undefined ? existing.handle : w.handle,
    active: w.active ?? existing.active,
  };
  const changed =
    next.name !== existing.name ||
    next.email !== existing.email ||
    next.handle !== existing.handle ||
    next.active !== existing.active;
  if (!changed) return { outcome: "unchanged", creator: existing };
  next.updatedAt = nowIso;
  state.creators.set(externalId, next);
  return { outcome: "updated", creator: next };
}

function parseExternalId(raw: string): string {
  const r = ExternalIdRule.safeParse(raw);
  if (!r.success)
    throw invalid("The externalId is not valid.", { externalId: issueReasons(r.error).map((m) => m) });
  return r.data;
}

export const creatorHandlers = {
  list: ({ state, query }) => {
    const active = boolParam(query, "active");
    const since = timestampParam(query, "updatedSince");
    const p = pageParams(query);
    return ok(
      pageByKey(state.creators, p, {
        where: active === undefined ? {} : { active: active ? 1 : 0 },
        atLeast: since === undefined ? {} : { updated_ms: since },
      }),
    );
  },
  get: ({ state, params }) => {
    const c = state.creators.get(params.externalId!.trim());
    if (!c) throw notFound("Creator");
    return ok(c);
  },
  put: ({ state, params, body, sb }) => {
    const externalId = parseExternalId(params.externalId!);
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw invalid("The body must be a JSON object.", { body: ["must be an object"] });
    }
    const r = CreatorWrite.safeParse(body);
    if (!r.success) throw invalid("The creator is not valid.", issueDetails(r.error));
    const out = upsertCreator(state, externalId, r.data, sb.clock.iso());
    if ("reasons" in out)
      throw invalid("The creator is not valid.", { name: ["is required for a new creator"] });
    return ok(out.creator, out.outcome === "added" ? 201 : 200);
  },
  batch: ({ state, body, sb }) => {
    const creators = (body as { creators?: unknown } | undefined)?.creators;
    if (body === null || typeof body !== "object" || Array.isArray(body) || !Array.isArray(creators)) {
      throw invalid("The body must be {creators: [...]}.", { creators: ["must be an array"] });
    }
    if (creators.length === 0)
      throw invalid("The batch is empty.", { creators: ["must hold 1 to 1,000 creators"] });
    if (creators.length > LIMITS.creatorBatchMax) {
      throw invalid(`The batch holds ${creators.length} creators; the limit is 1,000.`, {
        creators: ["must hold 1 to 1,000 creators"],
      });
    }
    // Wrongly typed fields fail the whole request (rule 1); value rules are per row (rule 2).
    const typeErrors: Record<string, string[]> = {};
    creators.forEach((c, i) => {
      if (c === null || typeof c !== "object" || Array.isArray(c)) {
        typeErrors[`creators.${i}`] = ["must be an object"];
        return;
      }
      const o = c as Record<string, unknown>;
      if (typeof o.externalId !== "string") typeErrors[`creators.${i}.externalId`] = ["must be a string"];
      for (const f of ["name", "email", "handle"]) {
        if (o[f] !== undefined && o[f] !== null && typeof o[f] !== "string")
          typeErrors[`creators.${i}.${f}`] = ["must be a string or null"];
      }
      if (o.active !== undefined && typeof o.active !== "boolean")
        typeErrors[`creators.${i}.active`] = ["must be true or false"];
    });
    if (Object.keys(typeErrors).length) throw invalid("Some fields have the wrong type.", typeErrors);

    const now = sb.clock.iso();
    const seen = new Set<string>();
    const summary = { rows: creators.length, added: 0, updated: 0, unchanged: 0, rejected: 0 };
    const rows = creators.map((raw, index) => {
      const rawId = String((raw as { externalId: string }).externalId);
      const checked = checkCreatorWrite(raw, { withExternalId: true });
      const externalId = checked.ok ? checked.value.externalId : rawId.trim();
      let reasons: string[] = [];
      let outcome: Outcome | "rejected" = "rejected";
      if (!checked.ok) reasons = checked.reasons;
      else if (seen.has(externalId)) reasons = ["externalId: appears earlier in this batch"];
      else {
        const out = upsertCreator(state, externalId, checked.value, now);
        if ("reasons" in out) reasons = out.reasons;
        else outcome = out.outcome;
      }
      // The second appearance of an id is rejected even when the first was rejected itself.
      seen.add(externalId);
      summary[outcome]++;
      // The spec's row outcomes are added, updated and rejected: a row that changed nothing is an
      // accepted update of an existing creator ("updated"), counted `unchanged` in the summary.
      return { index, externalId, outcome: outcome === "unchanged" ? "updated" : outcome, reasons };
    });
    return ok({ summary, rows });
  },
} satisfies Handlers;
