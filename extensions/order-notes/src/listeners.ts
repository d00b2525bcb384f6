import type { EventListener, ExtensionContext } from '@shop/platform';
import { addNote } from './notes.ts';

/** A note whenever an order's status changes, unless staff switched the `status_notes` setting off. */
const statusChangeNote = ({ settings }: ExtensionContext): EventListener<'order.status_changed'> => ({
  name: 'order-notes.status-change',
  event: 'order.status_changed',
  async handle(tx, { order_id: orderId, from, to, reason }) {
    if ((await settings.boolean(tx, 'status_notes')) === false) return;
    const change = from === null ? `Status set to ${to}` : `Status changed from ${from} to ${to}`;
    await addNote(tx, BigInt(orderId), reason === null ? change : `${change}: ${reason}`, null);
  },
});

export const listeners = (context: ExtensionContext) => [statusChangeNote(context)];
