// Child process for the lock test: `node increment-worker.mjs DIR COUNT` does COUNT locked
// read-modify-write increments of one counter in the config store at DIR. Bundled with esbuild
// by test/config/store.test.ts (the bundle keeps proper-lockfile as an external package).
import { ConfigStore } from "../../src/config/store.js";

const [dir, countText] = process.argv.slice(2);
const store = new ConfigStore(dir!);
for (let i = 0; i < Number(countText); i++) {
  await store.update((d) => {
    const c = d.cursors.counter ?? { cursor: null, updatedAt: "", rows: 0 };
    d.cursors.counter = { ...c, rows: (c.rows ?? 0) + 1, updatedAt: new Date().toISOString() };
  });
}
