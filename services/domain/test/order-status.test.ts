import { OrderStatus } from '@shop/platform';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../src/kernel/domain-error.ts';
import { assertTransition, canTransition, ORDER_TRANSITIONS } from '../src/orders/order-status.ts';

const STATES = Object.values(OrderStatus);
const LEGAL: [OrderStatus, OrderStatus][] = [
  ['AWAITING_APPROVAL', 'PENDING_PAYMENT'],
  ['AWAITING_APPROVAL', 'CANCELLED'],
  ['PENDING_PAYMENT', 'PLACED'],
  ['PENDING_PAYMENT', 'CANCELLED'],
  ['PLACED', 'FULFILLED'],
  ['PLACED', 'CANCELLED'],
  ['FULFILLED', 'COMPLETED'],
];

describe('the order lifecycle', () => {
  it('covers every status the database knows', () => {
    expect(Object.keys(ORDER_TRANSITIONS).sort()).toEqual([...STATES].sort());
  });

  it.each(LEGAL)('allows %s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(() => assertTransition('SO-1', from, to)).not.toThrow();
  });

  const illegal = STATES.flatMap((from) => STATES.map((to): [OrderStatus, OrderStatus] => [from, to])).filter(
    ([from, to]) => !LEGAL.some(([a, b]) => a === from && b === to),
  );

  it.each(illegal)('refuses %s -> %s as BAD_USER_INPUT naming both states', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    let error: unknown;
    try {
      assertTransition('SO-2026-000042', from, to);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { from, to } });
    expect((error as Error).message).toContain(`order SO-2026-000042 cannot go from ${from} to ${to}`);
  });

  it('says a final state is final', () => {
    expect(() => assertTransition('SO-1', 'COMPLETED', 'CANCELLED')).toThrow('COMPLETED is final');
  });
});
