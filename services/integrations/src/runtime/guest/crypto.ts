/**
 * Guest side. `crypto.getRandomValues` and `crypto.randomUUID`, on the host's CSPRNG.
 * No `crypto.subtle`.
 */
import { host } from './host';

type IntegerArray = Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;

function getRandomValues<T extends IntegerArray>(array: T): T {
  const integer = ArrayBuffer.isView(array) && !(array instanceof Float32Array || array instanceof Float64Array || array instanceof DataView);
  if (!integer) throw new TypeError('getRandomValues: the argument must be an integer typed array.');
  // The Web Crypto limit (a QuotaExceededError in browsers).
  if (array.byteLength > 65_536) throw new RangeError(`getRandomValues: ${array.byteLength} bytes requested, 65536 at most.`);
  new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(new Uint8Array(host.randomBytes(array.byteLength)));
  return array;
}

function randomUUID(): string {
  const bytes = getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

Object.assign(globalThis, { crypto: { getRandomValues, randomUUID } });
