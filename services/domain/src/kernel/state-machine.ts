import type { EventName } from '@shop/platform';
import { DomainError } from './domain-error.ts';

/** A named move: the states it may leave from, the one it leads to, and the event of the catalogue written when it changes the state (null: none). */
export interface MachineMove<S extends string> {
  readonly from: readonly S[];
  readonly to: S;
  readonly emits: EventName | null;
}

/** What a refused move knows, for a machine's own wording of the refusal. */
export interface Refusal<S extends string, M extends string> {
  readonly id: string;
  readonly from: S;
  readonly move: M;
  readonly to: S;
  /** The moves `from` allows, in the order the machine declares them. */
  readonly allowed: readonly M[];
}

export interface MachineDefinition<S extends string, M extends string> {
  /** The entity in refusals: `order`, `return`, `tender`. */
  readonly entity: string;
  readonly states: readonly S[];
  readonly moves: Readonly<Record<M, MachineMove<S>>>;
  /** The refusal's message and details; by default `<entity> <id> is <from>: it cannot <move> (...)` with `{ status, move }`. */
  readonly refuse?: (refusal: Refusal<S, M>) => { message: string; details: Record<string, unknown> };
}

export interface StateMachine<S extends string, M extends string> extends MachineDefinition<S, M> {
  /** The moves allowed from `from`. */
  movesFrom(from: S): M[];
  allows(from: S, move: M): boolean;
  /** The state `move` leads to from `from`, or BAD_USER_INPUT naming the entity, its state and the move. */
  next(id: bigint | string, from: S, move: M): S;
  /** Every allowed step as [from, to], a move leaving from several states giving one each. */
  steps(): [S, S][];
}

function defaultRefusal<S extends string, M extends string>(entity: string, { id, from, move, allowed }: Refusal<S, M>) {
  const next = allowed.length === 0 ? `${from} is final` : `from ${from} it can ${allowed.join(', ')}`;
  return { message: `${entity} ${id} is ${from}: it cannot ${move} (${next})`, details: { status: from, move } };
}

/** A state machine over `states`; a move naming a state outside them is a programming error, thrown at once. */
export function defineMachine<S extends string, M extends string>(definition: MachineDefinition<S, M>): StateMachine<S, M> {
  const names = Object.keys(definition.moves) as M[];
  for (const name of names) {
    const { from, to } = definition.moves[name];
    const unknown = [...from, to].filter((state) => !definition.states.includes(state));
    if (unknown.length > 0) throw new Error(`${definition.entity} move ${name} names unknown states: ${unknown.join(', ')}`);
  }
  const movesFrom = (from: S): M[] => names.filter((name) => definition.moves[name].from.includes(from));
  return {
    ...definition,
    movesFrom,
    allows: (from, move) => definition.moves[move].from.includes(from),
    next(id, from, move) {
      const { to } = definition.moves[move];
      if (definition.moves[move].from.includes(from)) return to;
      const refusal = { id: String(id), from, move, to, allowed: movesFrom(from) };
      const { message, details } = definition.refuse?.(refusal) ?? defaultRefusal(definition.entity, refusal);
      throw new DomainError('BAD_USER_INPUT', message, details);
    },
    steps: () => names.flatMap((name) => definition.moves[name].from.map((from): [S, S] => [from, definition.moves[name].to])),
  };
}
