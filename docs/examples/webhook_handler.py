#!/usr/bin/env python3
"""A minimal verifying webhook handler (Python standard library only).

Run:  WEBHOOK_SECRET=whsec_... PORT=3000 python3 webhook_handler.py
Then: partner-cli webhooks forward http://localhost:3000/webhooks

It checks Service-Signature over the raw body (HMAC-SHA256 keyed with the whole secret string,
over "<t>.<body>", constant-time compare, 300 s tolerance), answers 2xx only for a valid
delivery, de-duplicates by event id, and prints one line per request on stdout.
"""
import hashlib
import hmac
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

TOLERANCE_SECONDS = 300


def verify(header, raw_body, secrets, now=None):
    """True when one v1 value of the header matches the body with one of the secrets."""
    now = int(time.time()) if now is None else now
    parts = [p.strip().split("=", 1) for p in (header or "").split(",") if "=" in p]
    t = next((v for k, v in parts if k == "t"), None)
    v1 = [v for k, v in parts if k == "v1" and v]
    if t is None or not t.isdigit() or not v1 or abs(now - int(t)) > TOLERANCE_SECONDS:
        return False
    ok = False
    for secret in secrets:
        mac = hmac.new(secret.encode("utf-8"), t.encode("ascii") + b"." + raw_body, hashlib.sha256)
        expected = mac.hexdigest()
        for got in v1:
            ok = hmac.compare_digest(got, expected) or ok
    return ok


SECRETS = [s for s in os.environ.get("WEBHOOK_SECRET", "").split(",") if s]
SEEN = set()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if not verify(self.headers.get("Service-Signature"), raw, SECRETS):
            self.send_response(400)
            self.end_headers()
            print("rejected: bad signature", flush=True)
            return
        event = json.loads(raw)
        # Save the event durably here, answer 2xx, and process it afterwards.
        duplicate = event["id"] in SEEN
        SEEN.add(event["id"])
        self.send_response(200)
        self.end_headers()
        print(f"{'duplicate' if duplicate else 'verified'} {event['type']} {event['id']}", flush=True)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "3000"))), Handler)
    print(f"listening on http://127.0.0.1:{server.server_port}/webhooks", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)
