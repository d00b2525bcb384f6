import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, type EventName } from '../../src/events/catalog.ts';
import { EXAMPLES_DIR } from '../../src/events/schema-files.ts';
import { EventSchemaError, validateEvent } from '../../src/events/validator.ts';

const example = (name: EventName): Record<string, unknown> => JSON.parse(readFileSync(path.join(EXAMPLES_DIR, `${name}.json`), 'utf8'));

describe('validateEvent', () => {
  it.each(EVENT_NAMES)('accepts the documented example of %s', (name) => {
    expect(validateEvent(name, example(name))).toEqual([]);
  });

  it('reports every problem at the JSON pointer of the failing value', () => {
    const order = example('shop.orders.placed.v1');
    const [line] = order.lines as Record<string, unknown>[];
    const { sku: _sku, ...lineWithoutSku } = line ?? {};
    const bad = { ...order, currency: 'euro', lines: [{ ...lineWithoutSku, quantity: 0 }], surprise: true };
    expect(validateEvent('shop.orders.placed.v1', bad)).toEqual(
      expect.arrayContaining([
        { path: '/currency', message: 'must match pattern "^[A-Z]{3}$"' },
        { path: '/lines/0/quantity', message: 'must be >= 1' },
        { path: '/lines/0/sku', message: 'is required' },
        { path: '/surprise', message: 'is not a known field' },
      ]),
    );
  });

  it('rejects ids and money as numbers, local times and malformed event ids', () => {
    const stock = { ...example('shop.inventory.stock_changed.v1'), product_id: 42 };
    expect(validateEvent('shop.inventory.stock_changed.v1', stock)).toEqual([{ path: '/product_id', message: 'must be string' }]);
    const cart = { ...example('shop.cart.line_added.v1'), unit_price: 19.9, occurred_at: '2026-11-23T11:15:00+01:00', event_id: 'abc' };
    expect(
      validateEvent('shop.cart.line_added.v1', cart)
        .map((error) => error.path)
        .sort(),
    ).toEqual(['/event_id', '/occurred_at', '/unit_price']);
  });

  it('reports a payload that is not an object at the root', () => {
    expect(validateEvent('order.completed', 'done')).toEqual([{ path: '', message: 'must be object' }]);
  });
});

describe('EventSchemaError', () => {
  it('names the event and each failing path', () => {
    const error = new EventSchemaError('shop.orders.placed.v1', [
      { path: '/lines/0/quantity', message: 'must be >= 1' },
      { path: '', message: 'must be object' },
    ]);
    expect(error.message).toBe('invalid payload for shop.orders.placed.v1: /lines/0/quantity must be >= 1; (payload) must be object');
    expect(error.eventName).toBe('shop.orders.placed.v1');
    expect(error.errors).toHaveLength(2);
  });
});
