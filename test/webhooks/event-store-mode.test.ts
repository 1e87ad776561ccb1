// The local event store holds the organization's event data: created 0600 whatever the umask; an
// existing store keeps its mode.
import { chmodSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openEventStore } from "../../src/webhooks/event-store.js";
import { tempDir } from "../helpers/sandbox.js";

describe("event store file mode", () => {
  const before = process.umask();
  afterEach(() => {
    process.umask(before);
  });

  it("a new store is 0600 under umask 000", async () => {
    process.umask(0);
    const path = join(tempDir(), "events.ndjson");
    const store = await openEventStore(path);
    await store.append([{ id: "evt_1", line: '{"id":"evt_1","type":"redemption.recorded"}' }]);
    await store.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("an existing store keeps its mode", async () => {
    const path = join(tempDir(), "events.ndjson");
    writeFileSync(path, "");
    chmodSync(path, 0o640);
    const store = await openEventStore(path);
    await store.close();
    expect(statSync(path).mode & 0o777).toBe(0o640);
  });
});
