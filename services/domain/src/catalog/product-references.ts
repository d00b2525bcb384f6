import { DomainError, notFound, type Tx } from '../kernel/index.ts';

interface ProductReferences {
  readonly brandId?: bigint | null;
  readonly categoryIds?: readonly bigint[];
  readonly channelIds?: readonly bigint[];
}

/** BAD_USER_INPUT when an id is listed twice; NOT_FOUND naming the first id (as `field[index]`) that has no row. */
async function assertAllExist(
  ids: readonly bigint[],
  field: string,
  what: string,
  found: (ids: bigint[]) => Promise<{ id: bigint }[]>,
): Promise<void> {
  const distinct = new Set(ids);
  if (distinct.size !== ids.length) throw new DomainError('BAD_USER_INPUT', `${field} lists an id twice`, { field });
  const existing = new Set((await found([...distinct])).map((row) => row.id));
  const index = ids.findIndex((id) => !existing.has(id));
  if (index >= 0) throw notFound(what, ids[index] as bigint, `${field}[${index}]`);
}

/** The brand, categories and channels a product is given exist, so a wrong id is named rather than failing a foreign key. */
export async function productReferencesExist(tx: Tx, { brandId, categoryIds, channelIds }: ProductReferences): Promise<void> {
  if (brandId != null && (await tx.brand.count({ where: { id: brandId } })) === 0) throw notFound('brand', brandId, 'brandId');
  if (categoryIds !== undefined) {
    await assertAllExist(categoryIds, 'categoryIds', 'category', (ids) =>
      tx.category.findMany({ where: { id: { in: ids } }, select: { id: true } }),
    );
  }
  if (channelIds !== undefined) {
    await assertAllExist(channelIds, 'channelIds', 'channel', (ids) =>
      tx.channel.findMany({ where: { id: { in: ids } }, select: { id: true } }),
    );
  }
}
