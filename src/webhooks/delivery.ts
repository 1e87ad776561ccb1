// One webhook delivery on the wire (spec: Delivery, Receiver rules): the headers and signature the
// service sends with an envelope, and the POST with its outcome (2xx acknowledges; a redirect is a
// failure and is not followed; no answer within the timeout is timed_out). Shared by the sandbox's
// delivery engine and `webhooks forward`, so what a local app receives is what the service sends.
import { type ClientRequest, request as httpRequest, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import type { FailureCategory } from "../spec/webhooks.js";
import { buildSignatureHeader, sign } from "./signature.js";

/** Receivers must answer within 10 seconds (spec: Receiver rules). */
export const DELIVERY_TIMEOUT_MS = 10_000;

export interface DeliveryOutcome {
  /** The HTTP status, or null without an answer. */
  status: number | null;
  /** Null when acknowledged (2xx). */
  category: FailureCategory | null;
}

export interface DeliveryRequest {
  eventId: string;
  eventType: string;
  /** The envelope's bytes, sent and signed as they are. */
  body: Buffer;
  /** Every secret that signs (the current one, and the previous one during a rotation). */
  secrets: readonly string[];
  /** The signature's timestamp, unix seconds (the sender's real clock). */
  t: number;
}

/** The headers of a delivery, Service-Signature included (one v1 per secret). */
export function deliveryHeaders(d: DeliveryRequest): OutgoingHttpHeaders {
  return {
    "Content-Type": "application/json; charset=utf-8",
    "User-Agent": "Service-Webhooks/1",
    "Service-Event-Id": d.eventId,
    "Service-Event-Type": d.eventType,
    "Service-Signature": buildSignatureHeader(
      d.t,
      d.secrets.map((s) => sign(s, d.t, d.body)),
    ),
    "Content-Length": String(d.body.length),
  };
}

export interface PostOptions {
  timeoutMs: number;
  /** Told of the request once made (the engine destroys those in flight when it stops). */
  onRequest?: ((req: ClientRequest) => void) | undefined;
  /** Aborting ends the attempt at once as unreachable (Ctrl-C). */
  signal?: AbortSignal | undefined;
}

/** One POST. 2xx acknowledges; 3xx is `redirected` (not followed); other statuses `rejected`. */
export function postDelivery(
  url: string,
  headers: OutgoingHttpHeaders,
  body: Buffer,
  o: PostOptions,
): Promise<DeliveryOutcome> {
  return new Promise((resolve) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      resolve({ status: null, category: "unreachable" });
      return;
    }
    let done = false;
    const finish = (out: DeliveryOutcome) => {
      if (done) return;
      done = true;
      resolve(out);
    };
    const requestFn = u.protocol === "https:" ? httpsRequest : httpRequest;
    const req = requestFn(u, { method: "POST", headers, agent: false, signal: o.signal }, (res) => {
      const s = res.statusCode ?? 0;
      res.on("error", () => {});
      res.resume();
      if (s >= 200 && s < 300) finish({ status: s, category: null });
      else if (s >= 300 && s < 400) finish({ status: s, category: "redirected" });
      else finish({ status: s, category: "rejected" });
    });
    o.onRequest?.(req);
    const timer = setTimeout(() => {
      finish({ status: null, category: "timed_out" });
      req.destroy();
    }, o.timeoutMs);
    timer.unref();
    req.on("close", () => clearTimeout(timer));
    req.on("error", () => finish({ status: null, category: "unreachable" }));
    req.end(body);
  });
}
