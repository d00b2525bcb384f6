import type { EventListener } from '@shop/platform';
import { addNote } from './notes.ts';

const statusChangeNote: EventListener<'order.status_changed'> = {
  name: 'order-notes.status-change',
  event: 'order.status_changed',
  async handle(tx, { order_id: orderId, from, to, reason }) {
    const change = from === null ? `Status set to ${to}` : `Status changed from ${from} to ${to}`;
    await addNote(tx, BigInt(orderId), reason === null ? change : `${change}: ${reason}`, null);
  },
};

export const listeners = [statusChangeNote];
