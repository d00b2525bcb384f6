import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/kernel/domain-error.ts';
import { defineMachine } from '../../src/kernel/state-machine.ts';

type Door = 'OPEN' | 'SHUT' | 'LOCKED' | 'GONE';
type DoorMove = 'shut' | 'open' | 'lock' | 'remove';

const door = defineMachine<Door, DoorMove>({
  entity: 'door',
  states: ['OPEN', 'SHUT', 'LOCKED', 'GONE'],
  moves: {
    shut: { from: ['OPEN'], to: 'SHUT', emits: 'shop.orders.status_changed.v1' },
    open: { from: ['SHUT'], to: 'OPEN', emits: null },
    lock: { from: ['SHUT', 'LOCKED'], to: 'LOCKED', emits: 'shop.returns.status_changed.v1' },
    remove: { from: ['OPEN', 'SHUT'], to: 'GONE', emits: null },
  },
});

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('the move was not refused');
}

describe('defineMachine', () => {
  it('answers the state a move leads to, a move to the same state included', () => {
    expect(door.next(1n, 'OPEN', 'shut')).toBe('SHUT');
    expect(door.next(1n, 'SHUT', 'lock')).toBe('LOCKED');
    expect(door.next(1n, 'LOCKED', 'lock')).toBe('LOCKED');
  });

  it('lists the moves a state allows, in the order they are declared', () => {
    expect(door.movesFrom('SHUT')).toEqual(['open', 'lock', 'remove']);
    expect(door.movesFrom('GONE')).toEqual([]);
    expect(door.allows('OPEN', 'remove')).toBe(true);
    expect(door.allows('LOCKED', 'open')).toBe(false);
  });

  it('gives one step per state a move leaves from', () => {
    expect(door.steps()).toEqual([
      ['OPEN', 'SHUT'],
      ['SHUT', 'OPEN'],
      ['SHUT', 'LOCKED'],
      ['LOCKED', 'LOCKED'],
      ['OPEN', 'GONE'],
      ['SHUT', 'GONE'],
    ]);
  });

  it('refuses a move as BAD_USER_INPUT naming the entity, its state, the move and what the state allows', () => {
    const error = refusal(() => door.next(7n, 'LOCKED', 'open'));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toBe('door 7 is LOCKED: it cannot open (from LOCKED it can lock)');
    expect(error.details).toEqual({ status: 'LOCKED', move: 'open' });
    expect(refusal(() => door.next('front', 'GONE', 'shut')).message).toBe('door front is GONE: it cannot shut (GONE is final)');
  });

  it("words a refusal the machine's own way when it says how", () => {
    const worded = defineMachine<Door, DoorMove>({
      ...door,
      refuse: ({ id, from, move, to, allowed }) => ({
        message: `${id}: ${from} -${move}-> ${to}? only ${allowed.join('/')}`,
        details: { field: 'doorId' },
      }),
    });
    const error = refusal(() => worded.next(3n, 'OPEN', 'lock'));
    expect(error.message).toBe('3: OPEN -lock-> LOCKED? only shut/remove');
    expect(error.details).toEqual({ field: 'doorId' });
  });

  it('refuses, at definition, a move naming a state the machine does not have', () => {
    expect(() =>
      defineMachine<Door, 'fly'>({
        entity: 'door',
        states: ['OPEN', 'SHUT'],
        moves: { fly: { from: ['OPEN', 'LOCKED'], to: 'GONE', emits: null } },
      }),
    ).toThrow('door move fly names unknown states: LOCKED, GONE');
  });
});
