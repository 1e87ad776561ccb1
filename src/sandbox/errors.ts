// Errors the sandbox answers with: the spec's body {error:{code,message,details}}.
import { ERROR_STATUS, type ErrorCode } from "../spec/kit.js";

export class SandboxError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: Record<string, string[]> | undefined;
  readonly headers: Record<string, string>;
  constructor(
    code: ErrorCode,
    message: string,
    details?: Record<string, string[]>,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = details;
    this.headers = headers;
  }
  body() {
    return {
      error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) },
    };
  }
}

export const notFound = (what: string) => new SandboxError("not_found", `${what} not found.`);
export const conflict = (message: string, details?: Record<string, string[]>) =>
  new SandboxError("conflict", message, details);
export const invalid = (message: string, details?: Record<string, string[]>) =>
  new SandboxError("validation_failed", message, details);
