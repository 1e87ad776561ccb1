// Growable typed-array columns and interned strings: the storage of the traffic store (traffic.ts).
export type Typed = Uint32Array | Int32Array | Uint8Array | Float64Array;
export type TypedCtor<T extends Typed> = { new (n: number): T; BYTES_PER_ELEMENT: number };

/** A growable typed-array column. */
export class Column<T extends Typed> {
  data: T;
  private readonly ctor: TypedCtor<T>;
  constructor(ctor: TypedCtor<T>, capacity = 64) {
    this.ctor = ctor;
    this.data = new ctor(capacity);
  }
  ensure(n: number): void {
    if (n <= this.data.length) return;
    let cap = this.data.length || 64;
    while (cap < n) cap *= 2;
    const next = new this.ctor(cap);
    next.set(this.data as never);
    this.data = next;
  }
  toBase64(n: number): string {
    return Buffer.from(this.data.buffer, this.data.byteOffset, n * this.ctor.BYTES_PER_ELEMENT).toString(
      "base64",
    );
  }
  static fromBase64<T extends Typed>(ctor: TypedCtor<T>, b64: string, n: number): Column<T> {
    const col = new Column(ctor, Math.max(64, n));
    const buf = Buffer.from(b64, "base64");
    const view = new ctor(n);
    new Uint8Array(view.buffer).set(buf.subarray(0, n * ctor.BYTES_PER_ELEMENT));
    col.data.set(view as never);
    return col;
  }
}

/** Interned strings: index ↔ text. */
export class StringTable {
  readonly values: string[];
  private readonly index = new Map<string, number>();
  constructor(values: string[] = []) {
    this.values = values;
    for (let i = 0; i < values.length; i++) this.index.set(values[i]!, i);
  }
  intern(v: string): number {
    let i = this.index.get(v);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(v);
      this.index.set(v, i);
    }
    return i;
  }
  find(v: string): number | undefined {
    return this.index.get(v);
  }
  get(i: number): string {
    return this.values[i]!;
  }
}
