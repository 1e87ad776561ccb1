// sandbox start: serve the sandbox until SIGINT (ctx.signal) or SIGTERM, then save and exit 0.
import { resolve } from "node:path";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import { untilStopped } from "../../io/until-stopped.js";

export interface SandboxStartOptions {
  port?: number | undefined;
  host?: string | undefined;
  dataDir?: string | undefined;
  seed?: "demo" | "empty" | undefined;
  latency?: number | undefined;
  faults?: string | undefined;
  rateLimit?: number | undefined;
  strictWebhookUrls?: boolean | undefined;
  /** Tests: called once the sandbox listens, with a function that stops it. */
  onListening?: ((info: StartedInfo, stop: () => void) => void) | undefined;
}

export interface StartedInfo {
  baseUrl: string;
  writeKey: string;
  readOnlyKey: string;
  dataDir: string | null;
}

export async function sandboxStartRun(opts: SandboxStartOptions, ctx: Context): Promise<void> {
  const rates = await faultRates(opts.faults);
  const dataDir = opts.dataDir ? resolve(opts.dataDir) : undefined;
  let release: (() => Promise<void>) | undefined;
  if (dataDir) {
    const { lockDataDir } = await import("../../sandbox/embedded.js");
    release = await lockDataDir(dataDir, { wait: false });
    ctx.onClose(() => release?.());
  }
  const sb = await listen(opts, dataDir, rates);
  const info: StartedInfo = {
    baseUrl: sb.url,
    writeKey: sb.writeKey,
    readOnlyKey: sb.readOnlyKey,
    dataDir: dataDir ?? null,
  };
  printStarted(ctx, info);
  ctx.io.err("Serving; press Ctrl-C (or send SIGTERM) to stop.");

  await untilStopped(ctx.signal, (stop) => opts.onListening?.(info, stop));
  await sb.close();
  await release?.();
  release = undefined;
  ctx.io.err(dataDir ? `Sandbox stopped; state saved in ${dataDir}.` : "Sandbox stopped.");
}

type FaultRates = ReturnType<typeof import("../../sandbox/faults.js").parseFaultSpec>;

/** --faults as rates per kind (none without it); a usage error says the grammar. */
async function faultRates(spec: string | undefined): Promise<FaultRates> {
  if (spec === undefined) return {};
  const { parseFaultSpec } = await import("../../sandbox/faults.js");
  try {
    return parseFaultSpec(spec);
  } catch (err) {
    throw new UsageError(
      `--faults: ${(err as Error).message}.`,
      'Use KIND=RATE pairs, for example "--faults 429=0.1,502=0.05,500=0.02".',
    );
  }
}

/** The sandbox listening as asked; an address that cannot be had is a usage error naming the next step. */
async function listen(opts: SandboxStartOptions, dataDir: string | undefined, rates: FaultRates) {
  const { startSandbox } = await import("../../sandbox/server.js");
  const port = opts.port ?? 4010;
  try {
    return await startSandbox({
      port,
      host: opts.host,
      dataDir,
      seed: opts.seed ?? "demo",
      strictWebhookUrls: opts.strictWebhookUrls,
      faults: {
        rates,
        ...(opts.latency !== undefined ? { latencyMs: opts.latency } : {}),
        ...(opts.rateLimit !== undefined ? { rateLimit: opts.rateLimit } : {}),
      },
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new UsageError(
        `Port ${port} is already in use.`,
        "Pick another with --port N, or --port 0 for any free port.",
      );
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
      throw new UsageError(`Cannot listen on ${opts.host}: no such local address.`, "Use --host 127.0.0.1.");
    if (code === "EACCES")
      throw new UsageError(`Not allowed to listen on port ${port}.`, "Use a port above 1023, or --port 0.");
    throw err;
  }
}

/** Where the sandbox listens and its keys: JSON, a page for a person at a terminal, or a record. */
function printStarted(ctx: Context, info: StartedInfo): void {
  // These are the sandbox's own keys: printing them is the point of this command.
  if (ctx.io.json) {
    ctx.io.out(`${JSON.stringify(info)}\n`);
  } else if (ctx.io.stdoutIsTTY) {
    ctx.io.out(
      [
        `Sandbox listening on ${info.baseUrl}`,
        "",
        `  base URL       ${info.baseUrl}`,
        `  write key      ${info.writeKey}`,
        `  read-only key  ${info.readOnlyKey}`,
        `  data           ${info.dataDir ?? "in memory (gone when it stops; use --data-dir to keep it)"}`,
        "",
        "Point the CLI at it from another terminal:",
        `  export PARTNER_BASE_URL=${info.baseUrl}`,
        `  export PARTNER_API_KEY=${info.writeKey}`,
        "",
      ].join("\n"),
    );
  } else {
    printRecord(ctx.io, info, [
      ["baseUrl", info.baseUrl],
      ["writeKey", info.writeKey],
      ["readOnlyKey", info.readOnlyKey],
      ["dataDir", info.dataDir],
    ]);
  }
}
