import { createHash } from 'node:crypto';

/** The first `length` hex digits of the SHA-256 of `text`: stable across runs and machines. */
export function sha256Hex(text: string, length = 64): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}
