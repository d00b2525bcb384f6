import { OrderStatus } from '@shop/platform';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/kernel/domain-error.ts';
import { type OrderMove, orderMachine } from '../../src/orders/order-status.ts';

const STATES = Object.values(OrderStatus);
const MOVES = Object.keys(orderMachine.moves) as OrderMove[];
const LEGAL: [OrderStatus, OrderMove, OrderStatus][] = [
  ['AWAITING_APPROVAL', 'approve', 'PENDING_PAYMENT'],
  ['AWAITING_APPROVAL', 'cancel', 'CANCELLED'],
  ['PENDING_PAYMENT', 'pay', 'PLACED'],
  ['PENDING_PAYMENT', 'cancel', 'CANCELLED'],
  ['PLACED', 'fulfil', 'FULFILLED'],
  ['PLACED', 'cancel', 'CANCELLED'],
  ['FULFILLED', 'complete', 'COMPLETED'],
];

describe('the order lifecycle', () => {
  it('covers every status the database knows', () => {
    expect([...orderMachine.states].sort()).toEqual([...STATES].sort());
  });

  it.each(LEGAL)('moves %s by %s to %s', (from, move, to) => {
    expect(orderMachine.allows(from, move)).toBe(true);
    expect(orderMachine.next('SO-1', from, move)).toBe(to);
  });

  const illegal = STATES.flatMap((from) => MOVES.map((move): [OrderStatus, OrderMove] => [from, move])).filter(
    ([from, move]) => !LEGAL.some(([a, b]) => a === from && b === move),
  );

  it.each(illegal)('refuses %s by %s as BAD_USER_INPUT naming both states', (from, move) => {
    expect(orderMachine.allows(from, move)).toBe(false);
    const to = orderMachine.moves[move].to;
    let error: unknown;
    try {
      orderMachine.next('SO-2026-000042', from, move);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { from, to } });
    expect((error as Error).message).toContain(`order SO-2026-000042 cannot go from ${from} to ${to}`);
  });

  it('says what a state allows, and that a final state is final', () => {
    expect(() => orderMachine.next('SO-2026-000042', 'PENDING_PAYMENT', 'complete')).toThrow(
      'order SO-2026-000042 cannot go from PENDING_PAYMENT to COMPLETED: from PENDING_PAYMENT it can go to PLACED, CANCELLED',
    );
    expect(() => orderMachine.next('SO-1', 'COMPLETED', 'cancel')).toThrow('COMPLETED is final');
  });
});
