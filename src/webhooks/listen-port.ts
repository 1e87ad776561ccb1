// A leaf (no imports): the declarations read it at start-up, and src/spec/webhooks.ts loads zod.

/** The port `webhooks listen` takes when none is given (docs/webhooks.md); `--port 0` picks a free one. */
export const DEFAULT_LISTEN_PORT = 5757;
