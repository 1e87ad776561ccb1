// The part of fs-native-extensions (CommonJS, no types of its own) that src/io/file-lock.ts uses.
declare module "fs-native-extensions" {
  /** Takes a byte-range lock on `fd` without waiting: false when another open file holds it. */
  export function tryLock(fd: number, offset?: number, length?: number, opts?: { shared?: boolean }): boolean;
  /** Releases the lock on `fd` (closing the file releases it too). */
  export function unlock(fd: number, offset?: number, length?: number): void;
}
