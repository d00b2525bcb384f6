import type { SearchResult } from '@shop/platform';
import { searchAdmin, searchStorefront, type AdminSearch, type SearchPage } from '@shop/domain/search';
import type {
  AdminProductSearchHit,
  CustomerSearchHit,
  OrderSearchHit,
  ProductSearchHit,
  Resolvers,
} from '../graphql/generated/resolver-types.ts';
import { decodeCursor, encodeCursor, pageSize, parseOptionalId } from '../graphql/ids.ts';
import { staffRead } from '../graphql/staff-fields.ts';
import { imageUrlOf } from '../storage/api-file-storage.ts';
import { iso } from '../graphql/iso.ts';

// Search pages by offset (hits are ranked, not ordered by id): the cursor holds where the next page starts.
const CURSOR = 'search';

interface PageArgs {
  readonly text: string;
  readonly first?: number | null;
  readonly after?: string | null;
}

const pageOf = ({ text, first, after }: PageArgs): SearchPage => ({
  text,
  limit: pageSize(first),
  offset: Number(decodeCursor(CURSOR, after) ?? 0n),
});

/** The page's hits as `T`: the documents (services/domain/src/search/*-documents.ts) hold these fields by these names. */
function connection<T>(result: SearchResult, page: SearchPage) {
  const end = page.offset + result.hits.length;
  return {
    nodes: result.hits.map((hit) => hit.data as T),
    totalCount: result.total,
    pageInfo: { endCursor: result.hits.length === 0 ? null : encodeCursor(CURSOR, BigInt(end)), hasNextPage: end < result.total },
  };
}

/** A staff search of one kind of admin document. */
const adminSearch = <T>(kind: NonNullable<AdminSearch['kind']>) =>
  staffRead(async (args: PageArgs & { channelId?: string | null; status?: AdminSearch['status'] | null }, _staff, context) => {
    const page = pageOf(args);
    const channelId = parseOptionalId(args.channelId, 'channelId');
    const result = await searchAdmin(context.shop.services.search.admin, {
      ...page,
      kind,
      ...(channelId === undefined ? {} : { channelId }),
      ...(args.status == null ? {} : { status: args.status }),
    });
    return connection<T>(result, page);
  });

/** A product document's image key (undefined in a document indexed before products had images). */
const imageKeyOf = (hit: object): string | null | undefined => (hit as { imageKey?: string | null }).imageKey;

export const searchResolvers: Resolvers = {
  ProductSearchHit: { imageUrl: (hit, _args, context) => imageUrlOf(context, imageKeyOf(hit)) },
  AdminProductSearchHit: { imageUrl: (hit, _args, context) => imageUrlOf(context, imageKeyOf(hit)) },
  Query: {
    searchOrders: adminSearch<OrderSearchHit>('order'),
    searchCustomers: adminSearch<CustomerSearchHit>('customer'),
    searchAdminProducts: adminSearch<AdminProductSearchHit>('product'),
    async searchProducts(_root, args, context) {
      const page = pageOf(args);
      const categoryId = parseOptionalId(args.categoryId, 'categoryId');
      const brandId = parseOptionalId(args.brandId, 'brandId');
      const result = await searchStorefront(context.shop.services.search.storefront, {
        ...page,
        channelId: await context.shop.channelId(),
        ...(categoryId === undefined ? {} : { categoryId }),
        ...(brandId === undefined ? {} : { brandId }),
      });
      return connection<ProductSearchHit>(result, page);
    },
    async storefrontSearchKey(_root, _args, context) {
      const { searchKeys, deps } = context.shop.services;
      if (searchKeys === undefined) return null;
      const key = await searchKeys.forChannel(String(await context.shop.channelId()), deps.now());
      return { ...key, expiresAt: iso(key.expiresAt) };
    },
  },
};
