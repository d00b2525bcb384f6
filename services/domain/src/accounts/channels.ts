import type { Tx } from '../context.ts';
import { DomainError } from '../errors/domain-error.ts';

/** Throws NOT_FOUND when the channel does not exist. */
export async function assertChannelExists(tx: Tx, channelId: bigint): Promise<void> {
  if ((await tx.channel.count({ where: { id: channelId } })) === 0) {
    throw new DomainError('NOT_FOUND', `channel ${channelId} does not exist`, { channelId: channelId.toString() });
  }
}
