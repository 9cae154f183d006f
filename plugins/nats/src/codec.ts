/**
 * Wire codec for values crossing NATS: JSON, with typed arrays (CSI samples, subcarrier
 * indices) carried as base64 of their bytes so they arrive as the same typed arrays.
 */
const TYPED = {
  Float32Array,
  Float64Array,
  Int16Array,
  Int32Array,
  Uint8Array,
  Int8Array,
  Uint16Array,
  Uint32Array,
} as const;

type TypedName = keyof typeof TYPED;
const MARK = '$typed';

/** Encode a value as UTF-8 JSON bytes. */
export function encodeValue(value: unknown): Uint8Array {
  const json = JSON.stringify(value, function replacer(this: unknown, _key, v: unknown) {
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      const name = v.constructor.name as TypedName;
      if (name in TYPED) return { [MARK]: name, b64: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
    }
    return v;
  });
  return new TextEncoder().encode(json);
}

/** Decode what `encodeValue` produced; throws a clear error for bytes that are not such JSON. */
export function decodeValue(bytes: Uint8Array): unknown {
  const text = new TextDecoder().decode(bytes);
  return JSON.parse(text, (_key, v: unknown) => {
    if (v && typeof v === 'object' && MARK in (v as Record<string, unknown>)) {
      const { [MARK]: name, b64 } = v as { [MARK]: TypedName; b64: string };
      const Ctor = TYPED[name];
      if (!Ctor) throw new Error(`unknown typed array ${String(name)} in message`);
      const buf = Buffer.from(b64, 'base64');
      const copy = new Uint8Array(buf.byteLength);
      copy.set(buf);
      return new Ctor(copy.buffer, 0, copy.byteLength / Ctor.BYTES_PER_ELEMENT);
    }
    return v;
  });
}

const SET = '$wiflowSet';

/**
 * A set of values that must be processed together (e.g. the windows of every link of one
 * room at one instant: the pose model needs all of them), carried as one message so one
 * worker receives the whole set.
 */
export function valueSet(values: unknown[]): { [SET]: unknown[] } {
  return { [SET]: values };
}

/** The values of a message: the members of a set, or the value itself. */
export function valuesOf(message: unknown): unknown[] {
  if (message && typeof message === 'object' && Array.isArray((message as Record<string, unknown>)[SET])) return (message as { [SET]: unknown[] })[SET];
  return [message];
}
