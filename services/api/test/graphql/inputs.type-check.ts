/**
 * Compile-time checks that a GraphQL input and the domain's input it maps to stay together, enforced by
 * `npm run typecheck`: it fails if a line under a @ts-expect-error compiles. Nothing here runs.
 */
import type { ProductInput, ProductPatch } from '@shop/domain/catalog';
import { productFields, productPatchFields } from '../../src/catalog/inputs.ts';
import type * as GraphQL from '../../src/graphql/generated/resolver-types.ts';
import { type InputFields, optional, same } from '../../src/graphql/inputs.ts';

type WithProbe<T> = T & { readonly typeCheckProbe?: GraphQL.InputMaybe<number> };
interface DomainProductWithProbe extends ProductInput {
  readonly typeCheckProbe?: number;
}

export const _mappedFields: InputFields<GraphQL.ProductInput, ProductInput> = productFields;

// @ts-expect-error a field added to the GraphQL input and not handled: the mapping has no converter for it
export const _unhandledField: InputFields<WithProbe<GraphQL.ProductInput>, DomainProductWithProbe> = productFields;

export const _fieldTheDomainLacks: InputFields<WithProbe<GraphQL.ProductPatchInput>, ProductPatch> = {
  ...productPatchFields,
  // @ts-expect-error a field added to the GraphQL input that the domain does not take: no converter fits
  typeCheckProbe: same,
};

export const _handledField: InputFields<WithProbe<GraphQL.ProductInput>, DomainProductWithProbe> = {
  ...productFields,
  typeCheckProbe: optional,
};

// @ts-expect-error GraphQL's null for an optional create field must be handled before the domain, which takes no null
export const _nullNotHandled: InputFields<GraphQL.ProductInput, ProductInput> = { ...productFields, description: same };
