// The sandbox clock: wall time plus an offset that `sandbox advance` moves forward.
// It drives event times, retries, presets and retention.

export class SandboxClock {
  offsetMs: number;
  private readonly listeners = new Set<() => void>();
  constructor(offsetMs = 0) {
    this.offsetMs = offsetMs;
  }
  nowMs(): number {
    return Date.now() + this.offsetMs;
  }
  now(): Date {
    return new Date(this.nowMs());
  }
  /** ISO timestamp in the spec's format (whole seconds, Z). */
  iso(ms = this.nowMs()): string {
    return toIso(ms);
  }
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error("the sandbox clock only moves forward");
    this.offsetMs += ms;
    for (const l of this.listeners) l();
  }
  onAdvance(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

export function toIso(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}
