import type { ExtensionActivityContext } from '@shop/platform';
import { writeDigest, type OrderNotesDigest } from './digests.ts';

/** The extension's activities, named apart from the core's and other extensions' (the worker refuses a name taken twice). */
export interface OrderNotesActivities {
  writeOrderNotesDigest(input: { workflowId: string; asOf: string }): Promise<OrderNotesDigest>;
}

export const activities = ({ settings, transaction }: ExtensionActivityContext): OrderNotesActivities => ({
  writeOrderNotesDigest: ({ workflowId, asOf }) =>
    transaction(async (tx) =>
      writeDigest(tx, { workflowId, asOf: new Date(asOf), signingKey: await settings.string(tx, 'digest_signing_key') }),
    ),
});
