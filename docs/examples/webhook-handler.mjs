// A minimal verifying webhook handler (Node, no dependencies).
//
// Run:  WEBHOOK_SECRET=whsec_... PORT=3000 node webhook-handler.mjs
// Then: partner-cli webhooks forward http://localhost:3000/webhooks
//
// It checks Service-Signature over the raw body (HMAC-SHA256 keyed with the whole secret string,
// over "<t>.<body>", constant-time compare, 300 s tolerance), answers 2xx only for a valid
// delivery, de-duplicates by event id, and prints one line per request on stdout.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

const TOLERANCE_SECONDS = 300;

/** rawBody: the Buffer exactly as received; secrets: current (and previous, during a rotation). */
export function verify(header, rawBody, secrets, nowSeconds = Math.floor(Date.now() / 1000)) {
  const parts = (header ?? "").split(",").map((p) => p.trim().split("="));
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  const v1 = parts.filter(([k, v]) => k === "v1" && v).map(([, v]) => Buffer.from(v));
  if (!Number.isInteger(t) || v1.length === 0) return false;
  if (Math.abs(nowSeconds - t) > TOLERANCE_SECONDS) return false;
  let ok = false;
  for (const secret of secrets) {
    const mac = createHmac("sha256", Buffer.from(secret, "utf8")).update(`${t}.`).update(rawBody).digest("hex");
    const expected = Buffer.from(mac);
    for (const got of v1) if (got.length === expected.length && timingSafeEqual(got, expected)) ok = true;
  }
  return ok;
}

const secrets = (process.env.WEBHOOK_SECRET ?? "").split(",").filter(Boolean);
const seen = new Set();

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const raw = Buffer.concat(chunks);
    if (!verify(req.headers["service-signature"], raw, secrets)) {
      res.writeHead(400).end();
      console.log("rejected: bad signature");
      return;
    }
    const event = JSON.parse(raw.toString("utf8"));
    // Save the event durably here, answer 2xx, and process it afterwards.
    const duplicate = seen.has(event.id);
    seen.add(event.id);
    res.writeHead(200).end();
    console.log(`${duplicate ? "duplicate" : "verified"} ${event.type} ${event.id}`);
  });
});

server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks`);
});
process.on("SIGTERM", () => server.close());
