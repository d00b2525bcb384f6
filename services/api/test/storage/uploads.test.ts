import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, loadConfig } from '@shop/platform';
import { coreStorageRegistry, LocalFileStorage, MAX_UPLOAD_BYTES, openFileStorage } from '@shop/platform/storage';
import { freePort } from '../../../../test/infra/proc.ts';
import { answerErrorsAsJson } from '../../src/http/errors.ts';
import { localUploadRoutes } from '../../src/storage/upload-routes.ts';
import { startApi } from '../support/start-api.ts';

const SECRET = 'a-test-secret-key-of-at-least-32-characters';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let dir: string;
let app: FastifyInstance;
let origin: string;
let now = Date.now();
let storage: LocalFileStorage;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shop-uploads-'));
  app = Fastify();
  answerErrorsAsJson(app);
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  // Absolute URLs, as with PUBLIC_API_BROWSER_ORIGIN set; the clock is the test's, to expire tokens.
  storage = new LocalFileStorage({ dir, secretKeys: [SECRET], publicOrigin: origin, now: () => now });
  localUploadRoutes(app, storage);
  await app.listen({ host: '127.0.0.1', port });
});
afterAll(async () => {
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

const sign = (key: string, sizeBytes: number, contentType = 'image/png', expiresInSeconds = 300) =>
  storage.signedUploadUrl(key, { contentType, sizeBytes, expiresInSeconds });

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const { error } = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...error };
}

describe('uploading to local storage with a signed URL, as a browser does', () => {
  it('takes the upload, then serves the file at its public URL with its content type and a sandbox', async () => {
    const upload = await sign('products/1/front.png', PNG.length);
    expect(upload.url.startsWith(`${origin}/uploads/products/1/front.png?token=`)).toBe(true);
    const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: PNG });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ url: `${origin}/uploads/products/1/front.png` });
    const got = await fetch(storage.publicUrl('products/1/front.png'));
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(Buffer.from(await got.arrayBuffer())).toEqual(PNG);
    expect(await readFile(join(dir, 'products/1/front.png'))).toEqual(PNG);
  });

  it('answers 404 for a missing file', async () => {
    expect(await errorOf(await fetch(`${origin}/uploads/products/none.png`))).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message: 'no file products/none.png',
    });
  });

  it.each(['..%2F..%2Fetc%2Fpasswd', 'products/..%2F..%2Fsecret', '.content-types/products/1/front.png', '%2Fetc%2Fpasswd'])(
    'refuses the traversal or hidden path /uploads/%s',
    async (path) => {
      const answer = await errorOf(await fetch(`${origin}/uploads/${path}`));
      expect(answer).toMatchObject({ status: 400, code: 'BAD_REQUEST', message: expect.stringMatching(/^object key ".*" is not allowed/) });
    },
  );

  it('refuses a path with literal dot segments, as a client that does not normalise them sends it', async () => {
    // node:http sends the path as given; fetch would resolve the dots first.
    const answer = await new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
      const { hostname, port } = new URL(origin);
      request({ hostname, port, path: '/uploads/products/../../../etc/passwd' }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode, body }));
      })
        .on('error', reject)
        .end();
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.message).toContain('(bad segment "..")');
  });

  it('refuses a PUT whose token is missing, forged, for another key or expired', async () => {
    const put = (url: string) => fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: PNG });
    expect(await errorOf(await put(`${origin}/uploads/x.png`))).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      message: 'an upload needs the token of a signed upload URL',
    });

    const upload = await sign('x.png', PNG.length);
    const url = new URL(upload.url);
    const token = url.searchParams.get('token') as string;
    const [payload, signature] = token.split('.') as [string, string];
    const bigger = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sizeBytes: MAX_UPLOAD_BYTES }),
    ).toString('base64url');
    url.searchParams.set('token', `${bigger}.${signature}`);
    expect(await errorOf(await put(url.href))).toEqual({ status: 403, code: 'FORBIDDEN', message: 'the upload token is not valid' });

    expect(await errorOf(await put(`${origin}/uploads/y.png?token=${token}`))).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      message: 'the upload token is for another object than "y.png"',
    });

    now += 301_000;
    expect(await errorOf(await put(upload.url))).toEqual({ status: 403, code: 'FORBIDDEN', message: 'the upload token has expired' });
    expect(await readdir(dir)).not.toContain('x.png');
  });

  it('refuses a body larger or smaller than signed, and another content type', async () => {
    const upload = await sign('sized.png', 8);
    const put = (body: Buffer, contentType = 'image/png') =>
      fetch(upload.url, { method: 'PUT', headers: { 'content-type': contentType }, body });
    expect(await errorOf(await put(Buffer.alloc(9)))).toEqual({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      message: 'the upload URL is signed for 8 bytes; the body has 9',
    });
    expect(await errorOf(await put(Buffer.alloc(7)))).toMatchObject({
      status: 400,
      message: 'the upload URL is signed for a body of exactly 8 bytes (Content-Length 7)',
    });
    expect(await errorOf(await put(Buffer.alloc(8), 'text/html'))).toEqual({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'the upload URL is signed for content type image/png, not text/html',
    });
    expect((await put(Buffer.alloc(8))).status).toBe(200);
  });
});

describe('the api app', () => {
  it('serves /uploads and takes signed uploads with local storage selected', async () => {
    const env = { FILE_STORAGE_DIR: dir, LOG_LEVEL: 'ERROR' };
    const api = await startApi(env);
    try {
      const config = loadConfig({ NODE_ENV: 'test', ...env });
      const local = await openFileStorage(coreStorageRegistry(), config, createLogger({ level: 'ERROR', service: 'test' }));
      if (local === undefined) throw new Error('no file storage was selected');
      const upload = await local.signedUploadUrl('app/logo.png', { contentType: 'image/png', sizeBytes: PNG.length, expiresInSeconds: 60 });
      expect(upload.url).toMatch(/^\/uploads\/app\/logo\.png\?token=/);
      expect((await fetch(new URL(upload.url, api.url), { method: 'PUT', headers: upload.headers, body: PNG })).status).toBe(200);
      expect(Buffer.from(await (await fetch(new URL(local.publicUrl('app/logo.png'), api.url))).arrayBuffer())).toEqual(PNG);
    } finally {
      await api.close();
    }
  });
});
