import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  MAX_UPLOAD_BYTES,
  StorageInputError,
  UPLOADS_PATH,
  UploadTokenError,
  type LocalFileStorage,
  type UploadGrant,
} from '@shop/platform/storage';

/** An error the app's error handler answers with this status and message. */
function refusal(statusCode: number, message: string): Error & { statusCode: number } {
  return Object.assign(new Error(message), { statusCode });
}

function keyOf(request: FastifyRequest): string {
  return (request.params as { '*': string })['*'];
}

/** The upload a PUT may make, or a 4xx: checked before the body is read, so a refused upload costs no transfer. */
function grantFor(storage: LocalFileStorage, request: FastifyRequest): UploadGrant {
  const { token } = request.query as { token?: unknown };
  if (typeof token !== 'string') throw refusal(403, 'an upload needs the token of a signed upload URL');
  let grant: UploadGrant;
  try {
    grant = storage.tokens.verify(token, keyOf(request));
  } catch (error) {
    if (error instanceof UploadTokenError) throw refusal(403, error.message);
    throw error;
  }
  const contentType = request.headers['content-type'];
  if (contentType !== grant.contentType)
    throw refusal(415, `the upload URL is signed for content type ${grant.contentType}, not ${contentType ?? 'none'}`);
  const length = Number(request.headers['content-length']);
  if (length > grant.sizeBytes) throw refusal(413, `the upload URL is signed for ${grant.sizeBytes} bytes; the body has ${length}`);
  if (length !== grant.sizeBytes)
    throw refusal(
      400,
      `the upload URL is signed for a body of exactly ${grant.sizeBytes} bytes (Content-Length ${request.headers['content-length'] ?? 'missing'})`,
    );
  return grant;
}

/** Bad keys (traversal, hidden files, ...) are the caller's mistake. */
async function asInput<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StorageInputError) throw refusal(400, error.message);
    throw error;
  }
}

/**
 * GET (and HEAD) /uploads/<key> serve the local file storage; PUT /uploads/<key>?token=... takes the
 * one upload a signed upload URL grants. Served files cannot run script on the api's origin (sandbox CSP, nosniff).
 */
export function localUploadRoutes(app: FastifyInstance, storage: LocalFileStorage): void {
  app.get(`${UPLOADS_PATH}/*`, async (request, reply) => {
    const file = await asInput(() => storage.file(keyOf(request)));
    if (file === undefined) throw refusal(404, `no file ${keyOf(request)}`);
    reply.headers({
      'content-type': file.contentType,
      'content-length': file.sizeBytes,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
    });
    return reply.send(createReadStream(file.path));
  });

  app.register(async (scope) => {
    // Any content type, as raw bytes: the grant says which one is allowed.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES }, (_request, body, done) => done(null, body));
    const grants = new WeakMap<FastifyRequest, UploadGrant>();
    scope.put(`${UPLOADS_PATH}/*`, {
      onRequest: async (request) => {
        grants.set(request, grantFor(storage, request));
      },
      handler: async (request, reply) => {
        const grant = grants.get(request) as UploadGrant;
        await storage.put(grant.key, request.body as Buffer, grant.contentType);
        return reply.code(200).send({ url: storage.publicUrl(grant.key) });
      },
    });
  });
}
