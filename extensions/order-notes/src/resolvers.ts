import type { ExtensionContext } from '@shop/platform';
import { parseId, staffField } from '@shop/api';
import { addNote, notesOf } from './notes.ts';

export const resolvers = ({ settings }: ExtensionContext) => ({
  Query: {
    orderNotes: staffField(({ orderId }: { orderId: string }, { tx }) => notesOf(tx, parseId(orderId, 'orderId'))),
  },
  Mutation: {
    addOrderNote: staffField(async ({ orderId, body }: { orderId: string; body: string }, { tx, staffUserId }) =>
      addNote(tx, parseId(orderId, 'orderId'), body, staffUserId, await settings.number(tx, 'max_note_length')),
    ),
  },
});
