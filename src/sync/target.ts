// Where `sync` writes: `sqlite:PATH` (the embedded default) or `postgres://...` (a shared server).
// A password in a PostgreSQL URL is a secret: every label, message and trace uses the redacted form.
import { UsageError } from "../errors.js";

const DEFAULT_SYNC_TO = "sqlite:./partner.sqlite";

export type SyncTarget =
  | { kind: "sqlite"; path: string; label: string }
  | {
      kind: "postgres";
      /** The connection string handed to the driver (the `schema` parameter removed). */
      url: string;
      /** The schema the tables live in (`?schema=NAME`, default `public`). */
      schema: string;
      /** The URL with its password replaced by `***`, for messages. */
      label: string;
    };

/** A PostgreSQL URL with the password (and any `password` parameter) replaced by `***`. */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = "***";
    for (const k of [...u.searchParams.keys()])
      if (/pass|secret|token|key/i.test(k)) u.searchParams.set(k, "***");
    return u.toString();
  } catch {
    // Not parseable: hide whatever sits between "://user:" and "@".
    return raw.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@");
  }
}

/** Removes every password of `url` from a text (driver messages may quote the URL). */
export function scrub(text: string, target: SyncTarget): string {
  if (target.kind !== "postgres") return text;
  let out = text.split(target.url).join(target.label);
  try {
    const pw = decodeURIComponent(new URL(target.url).password);
    if (pw.length >= 3) out = out.split(pw).join("***");
  } catch {
    // nothing more to hide
  }
  return out;
}

const SCHEMA_RE = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Parses `--to` (or PARTNER_SYNC_TO). `source` names where the value came from, for messages. */
export function parseSyncTarget(raw: string, source: string): SyncTarget {
  const v = raw.trim();
  if (/^sqlite:/i.test(v)) {
    let path = v.slice("sqlite:".length);
    if (path.startsWith("//")) path = path.slice(2); // sqlite:///abs/path.sqlite
    if (path === "" || path === ":memory:")
      throw new UsageError(
        `${source} must name a database file: sqlite:PATH (for example sqlite:./partner.sqlite).`,
      );
    return { kind: "sqlite", path, label: `sqlite:${path}` };
  }
  if (/^postgres(ql)?:\/\//i.test(v)) {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      throw new UsageError(`${source} is not a valid PostgreSQL URL: ${redactUrl(v)}.`);
    }
    const schema = u.searchParams.get("schema") ?? "public";
    if (!SCHEMA_RE.test(schema))
      throw new UsageError(
        `${source}: schema "${schema}" must be letters, digits and underscores (at most 63), not starting with a digit.`,
      );
    u.searchParams.delete("schema");
    const url = u.toString();
    return { kind: "postgres", url, schema, label: redactUrl(v) };
  }
  throw new UsageError(
    `${source} must be sqlite:PATH or postgres://USER@HOST/DATABASE, not "${redactUrl(v)}".`,
    `For example --to sqlite:./partner.sqlite or --to postgres://partner@db.example.com/partner.`,
  );
}

/** The destination of this run: --to, else PARTNER_SYNC_TO, else ./partner.sqlite. */
export function resolveSyncTarget(to: string | undefined, env: NodeJS.ProcessEnv): SyncTarget {
  if (to !== undefined) return parseSyncTarget(to, "--to");
  if (env.PARTNER_SYNC_TO) return parseSyncTarget(env.PARTNER_SYNC_TO, "PARTNER_SYNC_TO");
  return parseSyncTarget(DEFAULT_SYNC_TO, "the default destination");
}
