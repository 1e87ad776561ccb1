// Shapes shared by the route table and the handlers.
import type { KeyRecord, OrgState } from "./store.js";
import type { Sandbox } from "./sandbox.js";

export interface SandboxRequest {
  method: string;
  /** Path parameters, already decoded (externalIds may hold "/", "%", spaces, unicode). */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  /** The organization of the calling key. */
  state: OrgState;
  key: KeyRecord;
  /** Remote address, for per-origin counting. */
  remoteAddress: string;
  sb: Sandbox;
}

export interface SandboxResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (req: SandboxRequest) => SandboxResponse | Promise<SandboxResponse>;
/** The handlers of one area, by name (handlers/<area>.ts); routes.ts gives each its method and path. */
export type Handlers = Record<string, Handler>;
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface Route {
  method: Method;
  /** Path under /api/partner/v1 (or under /_sandbox for control routes), find-my-way syntax. */
  path: string;
  /** "api" routes check read/write permission by method; "control" routes are the sandbox's own. */
  kind: "api" | "control";
  handler: Handler;
}

export const ok = (body: unknown, status = 200): SandboxResponse => ({ status, body });
