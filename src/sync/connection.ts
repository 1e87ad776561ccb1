// The database connection of a `sync` was lost mid-run (PostgreSQL restarted, the backend was
// terminated, the network dropped): a NetworkError (exit 7 when it stays down) that `sync` answers by
// reconnecting and going on from the checkpoints, which commit with their rows in one transaction.
import { NetworkError } from "../errors.js";

export class ConnectionLost extends NetworkError {
  /** The driver's own words (scrubbed of any password), for the retry notice. */
  readonly reason: string;
  /** The server was reached, then the session ended (terminated, shut down): worth a new connection. */
  readonly reached: boolean;
  constructor(label: string, reason: string, reached = false) {
    super(
      `PostgreSQL at ${label} did not answer: ${reason}.`,
      "CONNECT",
      label,
      "Check that the server is running and reachable; run again later (what was committed is kept).",
    );
    this.reason = reason;
    this.reached = reached;
  }
}
