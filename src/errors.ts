// Typed errors. Each kind maps to one exit code in src/main.ts (the only place that does so).

export type ErrorDetails = Record<string, string[]>;

/** Base class: a message for the user, plus an optional next step. */
export class CliError extends Error {
  readonly hint: string | undefined;
  constructor(message: string, hint?: string) {
    super(message);
    this.name = new.target.name;
    this.hint = hint;
  }
}

/** Bad flags, arguments or input file; also a declined confirmation. Exit 2. */
export class UsageError extends CliError {}

/** The user declined (or could not be asked) to confirm a destructive action. Exit 2. */
export class DeclinedError extends UsageError {}

/**
 * An output file (export file, event store) is not what its cursor committed, or belongs to another
 * cursor or organization: refused before any write. Exit 2.
 */
export class OutputChangedError extends UsageError {}

/** An error answer from the API, decoded from {error:{code,message,details}}. */
export class ApiError extends CliError {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetails | undefined;
  readonly method: string;
  readonly path: string;
  readonly retryAfterMs: number | undefined;
  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: ErrorDetails | undefined;
    method: string;
    path: string;
    hint?: string | undefined;
    retryAfterMs?: number | undefined;
  }) {
    super(init.message, init.hint);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.method = init.method;
    this.path = init.path;
    this.retryAfterMs = init.retryAfterMs;
  }
  withHint(hint: string): ApiError {
    return new ApiError({ ...this, message: this.message, hint });
  }
}

/** The network failed (reset, refused, timeout) and retries ran out. Exit 7. */
export class NetworkError extends CliError {
  readonly method: string;
  readonly path: string;
  constructor(message: string, method: string, path: string, hint?: string) {
    super(message, hint);
    this.method = method;
    this.path = path;
  }
}

/**
 * Who to talk to is not set up right: no credentials without a terminal, or a base URL that does not
 * answer like the Partner API. Exit 4 (with authentication and permission).
 */
export class ConfigError extends CliError {}

/**
 * A proxy from the environment (HTTPS_PROXY, HTTP_PROXY) that cannot be used: it asks for a user and
 * password (407), refuses the destination, or cannot be reached. Exit 4 like ConfigError, not retried.
 */
export class ProxyError extends ConfigError {}

/**
 * A TLS certificate that does not verify (self-signed, unknown CA, expired, another host name).
 * Exit 4 like ConfigError, never retried: the fix is configuration (NODE_EXTRA_CA_CERTS, the base URL).
 */
export class CertificateError extends ConfigError {}

/**
 * Something named on the command line (a campaign reference, a brand name) matches nothing the API
 * returned. Exit 5, as a 404.
 */
export class NotFoundError extends CliError {}

/**
 * An answer larger than the response cap (PARTNER_MAX_RESPONSE_BYTES): not read further, not
 * retried. Exit 4 like ConfigError: the Partner API never sends such an answer, so the base URL is
 * most likely not the API (or the cap is set too low).
 */
export class ResponseTooLargeError extends ConfigError {}

/**
 * The service broke a feed's contract (a cursor handed back again, a cursor cycle, the feed's order
 * going backwards, pages that never move on): the run stops before the bad page. Exit 4.
 */
export class FeedContractError extends CliError {}

/** Work finished, with a negative outcome (rejected rows, unassignable creators, bad signature). Exit 3. */
export class PartialFailure extends CliError {}

/** A webhook signature that does not verify (`webhooks verify`). Exit 3, error code `signature_mismatch`. */
export class SignatureMismatch extends PartialFailure {}

/** A job did not finish within --timeout. Exit 8. */
export class PendingError extends CliError {}

/** Another run holds the lock. Exit 9. */
export class LockedError extends CliError {}

/** Ctrl-C. Exit 130. */
export class CancelledError extends CliError {}

/**
 * A native module partner-cli loads on demand (libsql, the OS keychain binding, the file-lock addon)
 * does not load here: not installed, no build for this platform, or built for another Node. Made
 * by src/io/native.ts, naming the package, the platform and what still works. Exit 4.
 */
export class NativeModuleError extends ConfigError {
  /** The package that did not load. */
  readonly pkg: string;
  constructor(message: string, hint: string, pkg: string) {
    super(message, hint);
    this.pkg = pkg;
  }
}

/**
 * The machine failed, not partner-cli: a full disk or quota, a read-only file system, permission
 * denied, a directory or file where the other was expected, too many open files, an I/O error (a
 * native module that does not load is a NativeModuleError, exit 4). Made by src/io/machine-failure.ts (the one classifier). Exit 10.
 */
export class MachineError extends CliError {
  /** The errno or SQLite code (ENOSPC, EROFS, SQLITE_FULL, ERR_DLOPEN_FAILED...). */
  readonly code: string;
  /** The file or directory concerned, when known. */
  readonly path: string | undefined;
  readonly syscall: string | undefined;
  constructor(
    message: string,
    hint: string,
    o: { code: string; path?: string | undefined; syscall?: string | undefined },
  ) {
    super(message, hint);
    this.code = o.code;
    this.path = o.path;
    this.syscall = o.syscall;
  }
}

/** A response that does not match the spec at all (not JSON, wrong shape). Exit 1. */
export class ProtocolError extends CliError {}
