import { parseId, staffField } from '@shop/api';
import { addNote, notesOf } from './notes.ts';

export const resolvers = {
  Query: {
    orderNotes: staffField(({ orderId }: { orderId: string }, { tx }) => notesOf(tx, parseId(orderId, 'orderId'))),
  },
  Mutation: {
    addOrderNote: staffField(({ orderId, body }: { orderId: string; body: string }, { tx, staffUserId }) => addNote(tx, parseId(orderId, 'orderId'), body, staffUserId)),
  },
};
