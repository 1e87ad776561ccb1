// Feed pages as bytes: the same JSON as RedemptionRenderer.json, written straight into one Buffer
// (constant parts copied, digits and hex written byte by byte), so serving a 1,000-row page costs
// far less than the client's parse of it.
import type { RedemptionRenderer } from "./redemption-render.js";
import { idTail, permute } from "./traffic-ids.js";
import { FLAG_EXCLUDED, FLAG_TEST, type Traffic } from "./traffic.js";

const enc = (s: string) => Buffer.from(s, "utf8");
const B_OPEN = enc('{"id":"');
const B_GS1 = enc('","serializedGs1":"');
const B_REDEEMED = enc('","redeemedAt":"');
const B_RECORDED = enc('","recordedAt":"');
const B_QUOTE_COMMA = enc('",');
const B_CREATOR = enc(',"creator":');
const B_COUNTED = enc(',"countingState":"counted","exclusion":null}');
const B_TEST = enc(',"countingState":"test_code","exclusion":null}');
const B_EXCLUDED = enc(',"countingState":"excluded","exclusion":');
const HEX_CODES = Buffer.from("0123456789abcdef", "latin1");
const DASH = 0x2d;
const ZERO_CODE = 0x30;

export class FeedPageWriter {
  private buf: Buffer;
  private pos = 0;
  private readonly campaignBytes = new Map<number, { frag: Buffer; gs1: Buffer }>();
  private readonly creatorBytes = new Map<number, Buffer>();
  private dayKey = Number.NaN;
  private dayPrefix: Buffer = Buffer.alloc(0);
  constructor(
    private readonly r: RedemptionRenderer,
    private readonly t: Traffic,
    capacity = 64 * 1024,
  ) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  raw(b: Buffer): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  text(s: string): void {
    this.raw(enc(s));
  }

  private hex24(v: number): void {
    const b = this.buf;
    let p = this.pos;
    for (let shift = 20; shift >= 0; shift -= 4) b[p++] = HEX_CODES[(v >>> shift) & 15]!;
    this.pos = p;
  }

  private ts(sec: number): void {
    const d = Math.floor(sec / 86_400);
    if (d !== this.dayKey) {
      this.dayKey = d;
      this.dayPrefix = enc(new Date(d * 86_400_000).toISOString().slice(0, 11));
    }
    this.buf.set(this.dayPrefix, this.pos);
    this.pos += 11;
    const r = sec - d * 86_400;
    const b = this.buf;
    let p = this.pos;
    const two = (n: number, sep: number) => {
      b[p++] = ZERO_CODE + ((n / 10) | 0);
      b[p++] = ZERO_CODE + (n % 10);
      b[p++] = sep;
    };
    two((r / 3600) | 0, 0x3a);
    two(((r % 3600) / 60) | 0, 0x3a);
    two(r % 60, 0x5a);
    this.pos = p;
  }

  /** Appends redemption i as JSON. */
  row(i: number): void {
    const t = this.t;
    const ci = t.redCampaign.data[i]!;
    let cb = this.campaignBytes.get(ci);
    if (!cb) {
      const c = this.r.campaign(ci);
      cb = { frag: enc(c.json), gs1: enc(c.gs1Json) };
      this.campaignBytes.set(ci, cb);
    }
    const cr = t.redCreator.data[i]!;
    let crb = this.creatorBytes.get(cr);
    if (!crb) {
      crb = enc(this.r.creator(cr).json);
      this.creatorBytes.set(cr, crb);
    }
    this.ensure(300 + cb.frag.length + cb.gs1.length + crb.length);
    const b = this.buf;
    b.set(B_OPEN, this.pos);
    this.pos += B_OPEN.length;
    // id: 8-4 hex of the permuted position, then its keyed tail.
    const [l, rr] = permute(i, t.redemptionIds.keys);
    this.hex24(l);
    this.hex24(rr);
    // Insert the dash after 8 hex characters: shift the last 4 one to the right.
    const p = this.pos;
    b.copyWithin(p - 3, p - 4, p);
    b[p - 4] = DASH;
    this.pos = p + 1;
    this.pos += b.write(idTail(l, rr, t.redemptionIds.keys), this.pos, "latin1");
    b.set(B_GS1, this.pos);
    this.pos += B_GS1.length;
    b.set(cb.gs1, this.pos);
    this.pos += cb.gs1.length;
    // 10-digit serial (code + 1), more digits if ever needed.
    const serial = String(t.redCode.data[i]! + 1);
    for (let k = serial.length; k < 10; k++) b[this.pos++] = ZERO_CODE;
    for (let k = 0; k < serial.length; k++) b[this.pos++] = serial.charCodeAt(k);
    b.set(B_REDEEMED, this.pos);
    this.pos += B_REDEEMED.length;
    this.ts(t.redRedeemedAt.data[i]!);
    b.set(B_RECORDED, this.pos);
    this.pos += B_RECORDED.length;
    this.ts(t.redRecordedAt.data[i]!);
    b.set(B_QUOTE_COMMA, this.pos);
    this.pos += B_QUOTE_COMMA.length;
    b.set(cb.frag, this.pos);
    this.pos += cb.frag.length;
    b.set(B_CREATOR, this.pos);
    this.pos += B_CREATOR.length;
    b.set(crb, this.pos);
    this.pos += crb.length;
    const f = t.redFlags.data[i]!;
    if (f & FLAG_EXCLUDED) {
      this.raw(B_EXCLUDED);
      this.text(`${JSON.stringify(this.r.exclusion(i))}}`);
    } else this.raw(f & FLAG_TEST ? B_TEST : B_COUNTED);
  }

  /** The bytes written so far. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}
