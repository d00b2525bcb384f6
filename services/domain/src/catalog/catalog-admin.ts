import { DomainError } from '../errors/domain-error.ts';
import type { Tx } from '../context.ts';
import { money } from '../money.ts';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const CURRENCY = /^[A-Z]{3}$/;

function requireText(field: string, value: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) throw new DomainError('BAD_USER_INPUT', `${field} must not be empty`, { field });
  if (trimmed.length > max) throw new DomainError('BAD_USER_INPUT', `${field} must be at most ${max} characters`, { field });
  return trimmed;
}

function requireSlug(value: string): string {
  const slug = requireText('slug', value, 200);
  if (!SLUG.test(slug)) throw new DomainError('BAD_USER_INPUT', 'slug must be lower-case words joined by hyphens, e.g. black-tee', { field: 'slug' });
  return slug;
}

function requireCurrency(value: string): string {
  if (!CURRENCY.test(value)) throw new DomainError('BAD_USER_INPUT', 'currency must be an ISO 4217 code such as EUR', { field: 'currency' });
  return value;
}

export async function createChannel(tx: Tx, input: { code: string; name: string; defaultCurrency: string }) {
  return tx.channel.create({
    data: { code: requireText('code', input.code, 50), name: requireText('name', input.name, 200), defaultCurrency: requireCurrency(input.defaultCurrency) },
  });
}

export async function createBrand(tx: Tx, input: { name: string; slug: string }) {
  return tx.brand.create({ data: { name: requireText('name', input.name, 200), slug: requireSlug(input.slug) } });
}

export async function createCategory(tx: Tx, input: { name: string; slug: string; parentId?: bigint; position?: number }) {
  if (input.parentId !== undefined && (await tx.category.count({ where: { id: input.parentId } })) === 0) {
    throw new DomainError('NOT_FOUND', `parent category ${input.parentId} does not exist`, { field: 'parentId' });
  }
  return tx.category.create({
    data: { name: requireText('name', input.name, 200), slug: requireSlug(input.slug), parentId: input.parentId ?? null, position: input.position ?? 0 },
  });
}

export interface ProductInput {
  readonly sku: string;
  readonly name: string;
  readonly slug: string;
  readonly description?: string;
  readonly brandId?: bigint;
  /** Decimal string, e.g. "19.90". */
  readonly price: string;
  readonly currency: string;
  readonly active?: boolean;
  /** In order: the first is the category reported in order lines and attribution. */
  readonly categoryIds?: readonly bigint[];
  readonly channelIds?: readonly bigint[];
}

function requirePrice(value: string): string {
  if (!/^\d{1,10}(\.\d{1,2})?$/.test(value)) throw new DomainError('BAD_USER_INPUT', 'price must be a non-negative amount with at most two decimals, e.g. "19.90"', { field: 'price' });
  return money(value).toFixed(2);
}

export async function createProduct(tx: Tx, input: ProductInput) {
  return tx.product.create({
    data: {
      sku: requireText('sku', input.sku, 100),
      name: requireText('name', input.name, 300),
      slug: requireSlug(input.slug),
      description: input.description ?? '',
      brandId: input.brandId ?? null,
      price: requirePrice(input.price),
      currency: requireCurrency(input.currency),
      active: input.active ?? true,
      categories: { create: (input.categoryIds ?? []).map((categoryId, position) => ({ categoryId, position })) },
      channels: { create: (input.channelIds ?? []).map((channelId) => ({ channelId })) },
    },
  });
}
