// A progress bar on stderr, shown only when stderr is a terminal and --quiet is off. Otherwise every
// call is a no-op.
import type { Io } from "./io.js";

export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

const silent: Progress = { update() {}, stop() {} };

export async function startProgress(io: Io, label: string, total: number): Promise<Progress> {
  if (!io.stderrIsTTY || io.quiet) return silent;
  const { SingleBar, Presets } = (await import("cli-progress")).default;
  const bar = new SingleBar(
    {
      stream: io.stderr as NodeJS.WriteStream,
      format: `${label} [{bar}] {percentage}% | {value}/{total}`,
      hideCursor: true,
      clearOnComplete: true,
      noTTYOutput: false,
      etaBuffer: 50,
    },
    Presets.shades_classic,
  );
  bar.start(Math.max(total, 1), 0);
  return {
    update(done, newTotal) {
      if (newTotal !== undefined) bar.setTotal(Math.max(newTotal, 1));
      bar.update(done);
    },
    stop() {
      bar.stop();
    },
  };
}
