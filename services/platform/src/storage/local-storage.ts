import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { FileStorage, ObjectInfo, SignedUpload, StoredObject, UploadRules } from './file-storage.ts';
import { checkExpiry, checkObjectKey, checkUploadRules } from './object-key.ts';
import { UploadTokens } from './upload-token.ts';

/** Where the api serves local files (and takes signed uploads). */
export const UPLOADS_PATH = '/uploads';

export interface LocalStorageOptions {
  readonly dir: string;
  /** SECRET_KEY first, then SECRET_KEY_PREVIOUS when set. */
  readonly secretKeys: readonly [string, ...string[]];
  /** PUBLIC_API_BROWSER_ORIGIN: without it URLs are relative to the api. */
  readonly publicOrigin: string | undefined;
  readonly now?: () => number;
}

/** A stored file as the uploads route serves it. */
export interface LocalFile extends ObjectInfo {
  readonly path: string;
}

// Keys never start with a dot (checkObjectKey), so these folders can never hold or shadow an object.
const CONTENT_TYPES = '.content-types';
const PARTIAL = '.partial';

/**
 * Files in FILE_STORAGE_DIR, served by the api under /uploads; each object's content type is kept
 * beside it. Uploads go to a temp file first, so a half-written file is never served.
 */
export class LocalFileStorage implements FileStorage {
  readonly name = 'local';
  readonly tokens: UploadTokens;
  readonly #root: string;
  readonly #origin: string;

  constructor(options: LocalStorageOptions) {
    this.#root = resolve(options.dir);
    this.#origin = options.publicOrigin?.replace(/\/$/, '') ?? '';
    this.tokens = new UploadTokens(options.secretKeys, options.now);
  }

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    const path = this.#pathOf(key);
    const partial = join(this.#root, PARTIAL, randomUUID());
    await Promise.all([mkdir(dirname(path), { recursive: true }), mkdir(dirname(partial), { recursive: true })]);
    await writeFile(partial, body);
    await this.#writeContentType(key, contentType);
    await rename(partial, path);
  }

  async get(key: string): Promise<StoredObject | undefined> {
    const file = await this.file(key);
    return file && { body: await readFile(file.path), contentType: file.contentType };
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    const file = await this.file(key);
    return file && { contentType: file.contentType, sizeBytes: file.sizeBytes };
  }

  async delete(key: string): Promise<void> {
    await rm(this.#pathOf(key), { force: true });
    await rm(this.#contentTypePathOf(key), { force: true });
  }

  async signedUploadUrl(key: string, rules: UploadRules): Promise<SignedUpload> {
    const { contentType, sizeBytes, expiresInSeconds } = checkUploadRules(rules);
    const expiresAt = this.tokens.nowSeconds() + expiresInSeconds;
    const token = this.tokens.sign({ key: checkObjectKey(key), contentType, sizeBytes, expiresAt });
    return {
      url: `${this.publicUrl(key)}?token=${token}`,
      method: 'PUT',
      headers: { 'content-type': contentType },
      expiresAt: new Date(expiresAt * 1000),
    };
  }

  /** Local files are public: the download URL is the public one. */
  async signedDownloadUrl(key: string, expiresInSeconds: number): Promise<string> {
    checkExpiry(expiresInSeconds);
    return this.publicUrl(key);
  }

  publicUrl(key: string): string {
    // Key characters need no percent-encoding.
    return `${this.#origin}${UPLOADS_PATH}/${checkObjectKey(key)}`;
  }

  /** The file behind `key`, or undefined when there is none. */
  async file(key: string): Promise<LocalFile | undefined> {
    const path = this.#pathOf(key);
    const stats = await stat(path).catch(() => undefined);
    if (stats === undefined || !stats.isFile()) return undefined;
    const contentType = await readFile(this.#contentTypePathOf(key), 'utf8').catch(() => 'application/octet-stream');
    return { path, contentType, sizeBytes: stats.size };
  }

  #pathOf(key: string): string {
    const path = resolve(this.#root, checkObjectKey(key));
    // checkObjectKey already rules out leaving the root; this is the last line should it ever change.
    if (!path.startsWith(this.#root + sep)) throw new Error(`object key "${key}" resolves outside ${this.#root}`);
    return path;
  }

  #contentTypePathOf(key: string): string {
    return join(this.#root, CONTENT_TYPES, checkObjectKey(key));
  }

  async #writeContentType(key: string, contentType: string): Promise<void> {
    const path = this.#contentTypePathOf(key);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, contentType);
  }
}
