import { DomainError, type Tx } from '../kernel/index.ts';

/** Throws NOT_FOUND when the channel does not exist. */
export async function assertChannelExists(tx: Tx, channelId: bigint): Promise<void> {
  if ((await tx.channel.count({ where: { id: channelId } })) === 0) {
    throw new DomainError('NOT_FOUND', `channel ${channelId} does not exist`, { channelId: channelId.toString() });
  }
}

/** A channel by id or by code, with what a request needs of it; null when there is none. */
export async function findChannel(db: Tx, by: { id: bigint } | { code: string }) {
  return db.channel.findUnique({ where: by, select: { id: true, code: true, defaultCurrency: true } });
}
