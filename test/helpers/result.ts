// The one result shape of every run in tests: in-process (runIn), spawned (cli) and a run function
// with a test Context (fixtures.ts runFn).
export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws with the text when it is not JSON). */
  json<T = any>(): T;
}

export function runResult(r: { exitCode: number; stdout: string; stderr: string }): RunResult {
  return {
    exitCode: r.exitCode,
    stdout: r.stdout,
    stderr: r.stderr,
    json<T>(): T {
      try {
        return JSON.parse(r.stdout) as T;
      } catch {
        throw new Error(`stdout is not JSON (exit ${r.exitCode}):\n${r.stdout}\n--- stderr ---\n${r.stderr}`);
      }
    },
  };
}
