import { ReturnStatus } from '@shop/platform';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/kernel/domain-error.ts';
import { returnMachine, returnStatusAfter, unitsHeld, type ReturnMove } from '../../src/returns/return-status.ts';

const STATUSES = Object.values(ReturnStatus);
const MOVES: ReturnMove[] = ['submit', 'receive_part', 'receive_all', 'refund', 'cancel', 'expire', 'close'];
const LEGAL: [ReturnStatus, ReturnMove, ReturnStatus][] = [
  ['DRAFT', 'submit', 'REQUESTED'],
  ['DRAFT', 'cancel', 'CANCELLED'],
  ['DRAFT', 'expire', 'EXPIRED'],
  ['REQUESTED', 'receive_part', 'PARTIALLY_RECEIVED'],
  ['REQUESTED', 'receive_all', 'RECEIVED'],
  ['REQUESTED', 'cancel', 'CANCELLED'],
  ['REQUESTED', 'expire', 'EXPIRED'],
  ['PARTIALLY_RECEIVED', 'receive_part', 'PARTIALLY_RECEIVED'],
  ['PARTIALLY_RECEIVED', 'receive_all', 'RECEIVED'],
  ['PARTIALLY_RECEIVED', 'close', 'CLOSED'],
  ['RECEIVED', 'refund', 'REFUNDED'],
];

describe('the return lifecycle', () => {
  it('covers every status the database knows', () => {
    expect([...returnMachine.states].sort()).toEqual([...STATUSES].sort());
  });

  it.each(LEGAL)('moves %s by %s to %s', (from, move, to) => {
    expect(returnStatusAfter(7n, from, move)).toBe(to);
  });

  const illegal = STATUSES.flatMap((from) => MOVES.map((move): [ReturnStatus, ReturnMove] => [from, move])).filter(
    ([from, move]) => !LEGAL.some(([a, b]) => a === from && b === move),
  );

  it.each(illegal)('refuses %s by %s as BAD_USER_INPUT naming the status', (from, move) => {
    let error: unknown;
    try {
      returnStatusAfter(7n, from, move);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'returnId', status: from } });
    expect((error as Error).message).toMatch(new RegExp(`^return 7 is ${from}: it cannot be `));
  });

  it('says what a status allows instead, and that a final one is final', () => {
    expect(() => returnStatusAfter(7n, 'RECEIVED', 'cancel')).toThrow(
      'return 7 is RECEIVED: it cannot be cancelled (a RECEIVED return can only be refunded)',
    );
    expect(() => returnStatusAfter(7n, 'PARTIALLY_RECEIVED', 'cancel')).toThrow(
      '(a PARTIALLY_RECEIVED return can only be received or closed)',
    );
    expect(() => returnStatusAfter(7n, 'REQUESTED', 'close')).toThrow(
      'return 7 is REQUESTED: it cannot be closed (a REQUESTED return can only be received, cancelled or expired)',
    );
    expect(() => returnStatusAfter(7n, 'CLOSED', 'receive_part')).toThrow('return 7 is CLOSED: it cannot be received (CLOSED is final)');
    expect(() => returnStatusAfter(7n, 'EXPIRED', 'submit')).toThrow('return 7 is EXPIRED: it cannot be submitted (EXPIRED is final)');
  });
});

describe('units a return holds', () => {
  const now = new Date('2026-11-27T10:00:00Z');
  const line = { quantityRequested: 3, quantityReceived: 1 };
  const held = (status: ReturnStatus, draftExpiresAt = new Date('2026-11-28T10:00:00Z')) =>
    unitsHeld(line, { status, draftExpiresAt }, now);

  it('is every unit asked back while the return waits for goods, a draft until its expiry', () => {
    expect(held('DRAFT')).toBe(3);
    expect(held('REQUESTED')).toBe(3);
    expect(held('PARTIALLY_RECEIVED')).toBe(3);
  });

  it('is only what arrived once the return is closed or its draft ran out', () => {
    expect(held('DRAFT', now)).toBe(1);
    expect(held('RECEIVED')).toBe(1);
    expect(held('REFUNDED')).toBe(1);
    expect(held('CANCELLED')).toBe(1);
    expect(held('EXPIRED')).toBe(1);
    expect(held('CLOSED')).toBe(1);
  });
});
