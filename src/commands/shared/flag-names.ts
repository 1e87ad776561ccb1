// A 400 about a request's parameters, told in the flags the user typed: the API names its fields
// (`countingState`, `brandId`), the user typed `--state`, `--brand`. Only the fields the command
// maps are renamed; the service's answer is otherwise kept.
import { ApiError } from "../../errors.js";

/** `err` (a 400 with details keyed by API field) with `fields` (API name → flag) renamed, in its details and message. */
function inFlagNames(err: unknown, fields: Record<string, string>): unknown {
  if (!(err instanceof ApiError) || err.status !== 400) return err;
  const flagOf = (f: string) => fields[f] ?? f;
  const details: Record<string, string[]> = {};
  for (const [field, msgs] of Object.entries(err.details ?? {}))
    details[flagOf(field)] = [...(details[flagOf(field)] ?? []), ...msgs];
  let message = err.message;
  for (const [field, flag] of Object.entries(fields))
    message = message.replace(new RegExp(`\\b${field}\\b`, "g"), flag);
  return new ApiError({ ...err, message, details: err.details ? details : undefined });
}

/** Calls `fn`; a 400 it throws is told in the flags (see inFlagNames). */
export async function withFlagNames<T>(fields: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw inFlagNames(err, fields);
  }
}
