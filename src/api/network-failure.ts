// What an attempt that got no usable answer was, as the retry policy and the messages need it: its
// low-level code (ECONNRESET, TIMED_OUT, ...) and whether the request may have reached the service.
// Internal to src/api: the client turns it into a NetworkError (failure-words.ts) once retries end.

/** Connect-stage failures: the request never reached the server. */
export const NEVER_SENT: readonly string[] = [
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
];

/** The code of a NetworkFailure for an attempt that passed its total deadline. */
export const TIMED_OUT = "TIMED_OUT";

export class NetworkFailure extends Error {
  constructor(
    readonly code: string,
    readonly sent: boolean,
    message?: string,
  ) {
    super(message ?? code);
  }
}
