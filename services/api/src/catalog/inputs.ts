// The catalog's GraphQL inputs into the domain's, field by field: a field the schema adds must be handled here.
import type { BrandInput, BrandPatch, CategoryInput, CategoryPatch, ChannelInput, ProductInput, ProductPatch } from '@shop/domain/catalog';
import { DomainError } from '@shop/domain/kernel';
import type * as GraphQL from '../graphql/generated/resolver-types.ts';
import { parseIds, parseOptionalId } from '../graphql/ids.ts';
import { type InputFields, inputMapper, optional, same } from '../graphql/inputs.ts';

/** A patch's id: absent stays absent, null stays null (clear it), a value is parsed. */
function patchedId(value: string | null | undefined, argument: string): bigint | null | undefined {
  return value === null ? null : parseOptionalId(value, argument);
}

/** A patch's id list: absent stays absent; null is refused, as the list cannot be cleared that way. */
function patchedIds(values: readonly string[] | null | undefined, argument: string): bigint[] | undefined {
  if (values === null) throw new DomainError('BAD_USER_INPUT', `${argument} cannot be null: give [] to empty it`, { field: argument });
  return values === undefined ? undefined : parseIds(values, argument);
}

export const channelFields: InputFields<GraphQL.ChannelInput, ChannelInput> = { code: same, name: same, defaultCurrency: same };
export const brandFields: InputFields<GraphQL.BrandInput, BrandInput> = { name: same, slug: same };
export const brandPatchFields: InputFields<GraphQL.BrandPatchInput, BrandPatch> = { name: same, slug: same };
export const categoryFields: InputFields<GraphQL.CategoryInput, CategoryInput> = {
  name: same,
  slug: same,
  parentId: parseOptionalId,
  position: optional,
};
export const categoryPatchFields: InputFields<GraphQL.CategoryPatchInput, CategoryPatch> = {
  name: same,
  slug: same,
  parentId: patchedId,
  position: same,
};

export const productFields: InputFields<GraphQL.ProductInput, ProductInput> = {
  sku: same,
  name: same,
  slug: same,
  description: optional,
  brandId: parseOptionalId,
  price: same,
  currency: same,
  active: optional,
  categoryIds: parseIds,
  channelIds: parseIds,
};

export const productPatchFields: InputFields<GraphQL.ProductPatchInput, ProductPatch> = {
  sku: same,
  name: same,
  slug: same,
  description: same,
  brandId: patchedId,
  price: same,
  currency: same,
  active: same,
  categoryIds: patchedIds,
  channelIds: patchedIds,
};

export const channelInput = inputMapper(channelFields);
export const brandInput = inputMapper(brandFields);
export const brandPatch = inputMapper(brandPatchFields);
export const categoryInput = inputMapper(categoryFields);
export const categoryPatch = inputMapper(categoryPatchFields);
export const productInput = inputMapper(productFields);
export const productPatch = inputMapper(productPatchFields);
