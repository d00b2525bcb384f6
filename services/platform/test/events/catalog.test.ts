import { describe, expect, it } from 'vitest';
import { isTopic, partitionKeyOf } from '../../src/events/catalog.ts';

describe('catalog', () => {
  it('tells topics from in-process events and unknown names', () => {
    expect(isTopic('shop.orders.placed.v1')).toBe(true);
    expect(isTopic('cart.item_added')).toBe(false);
    expect(isTopic('toString')).toBe(false);
  });

  it("keys a topic event by its entity's id, '' when the field is missing", () => {
    expect(partitionKeyOf('shop.orders.modified.v1', { order_id: '9001', channel_id: '1' })).toBe('9001');
    expect(partitionKeyOf('shop.cart.line_added.v1', { cart_id: 310 })).toBe('310');
    expect(partitionKeyOf('shop.leads.created.v1', {})).toBe('');
  });
});
