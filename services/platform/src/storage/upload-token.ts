import { createHmac, timingSafeEqual } from 'node:crypto';

/** The one upload a local signed URL allows. */
export interface UploadGrant {
  readonly key: string;
  readonly contentType: string;
  readonly sizeBytes: number;
  /** Unix seconds. */
  readonly expiresAt: number;
}

export class UploadTokenError extends Error {
  override readonly name = 'UploadTokenError';
}

/** Its own key, so an upload token can never pass for a session token signed with SECRET_KEY itself. */
function uploadKeyOf(secretKey: string): Buffer {
  return createHmac('sha256', secretKey).update('shop file storage: local upload tokens v1').digest();
}

/**
 * `<payload>.<signature>`, both base64url: the payload is the grant as JSON, the signature its
 * HMAC-SHA256 under a key derived from SECRET_KEY (SECRET_KEY_PREVIOUS is still accepted).
 */
export class UploadTokens {
  readonly #keys: readonly Buffer[];
  readonly #now: () => number;

  constructor(secretKeys: readonly [string, ...string[]], now: () => number = Date.now) {
    this.#keys = secretKeys.map(uploadKeyOf);
    this.#now = now;
  }

  sign(grant: UploadGrant): string {
    const payload = Buffer.from(JSON.stringify(grant)).toString('base64url');
    return `${payload}.${this.#signature(this.#keys[0] as Buffer, payload).toString('base64url')}`;
  }

  /** The grant for `key`, or an UploadTokenError saying why not. */
  verify(token: string, key: string): UploadGrant {
    const [payload = '', signature = '', ...rest] = token.split('.');
    const given = Buffer.from(signature, 'base64url');
    const genuine =
      rest.length === 0 &&
      this.#keys.some((secret) => {
        const expected = this.#signature(secret, payload);
        return expected.length === given.length && timingSafeEqual(expected, given);
      });
    if (!genuine) throw new UploadTokenError('the upload token is not valid');
    const grant = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as UploadGrant;
    if (grant.key !== key) throw new UploadTokenError(`the upload token is for another object than "${key}"`);
    if (grant.expiresAt * 1000 <= this.#now()) throw new UploadTokenError('the upload token has expired');
    return grant;
  }

  #signature(secret: Buffer, payload: string): Buffer {
    return createHmac('sha256', secret).update(payload).digest();
  }

  nowSeconds(): number {
    return Math.floor(this.#now() / 1000);
  }
}
