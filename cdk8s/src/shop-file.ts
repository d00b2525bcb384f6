import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import shopSchema from '../../schemas/crd/shop.v1alpha1.json' with { type: 'json' };
import { firstSchemaProblem, type JsonSchema } from './schema-check.ts';
import type { Shop } from './shop.generated.ts';

export class ShopFileError extends Error {}

/** Reads one Shop from a YAML (or JSON) file, checked against the Shop schema; throws a one-line ShopFileError. */
export async function readShopFile(file: string): Promise<Shop> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : oneLine(error);
    throw new ShopFileError(`${file}: cannot read the Shop file: ${reason}`);
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new ShopFileError(`${file}: not valid YAML: ${oneLine(error)}`);
  }
  const problem = firstSchemaProblem(document, shopSchema as JsonSchema, 'shop') ?? identityProblem(document as Shop);
  if (problem !== undefined) throw new ShopFileError(`${file}: not a valid Shop: ${problem}`);
  return document as Shop;
}

function identityProblem(shop: Shop): string | undefined {
  if (shop.kind !== undefined && shop.kind !== 'Shop') return `shop.kind: must be Shop, not ${shop.kind}`;
  if (typeof shop.metadata?.name !== 'string') return 'shop.metadata.name: is required';
  return undefined;
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
