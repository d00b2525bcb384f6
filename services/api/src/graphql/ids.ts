import { DomainError } from '@shop/domain/kernel';

/** Database ids are positive bigints; GraphQL carries them as decimal strings. */
const ID = /^[1-9][0-9]{0,18}$/;
const MAX_ID = 2n ** 63n - 1n;

/** The id in a GraphQL `ID` argument, or BAD_USER_INPUT naming the argument. */
export function parseId(value: string | number, argument: string): bigint {
  const text = String(value).trim();
  if (ID.test(text)) {
    const id = BigInt(text);
    if (id <= MAX_ID) return id;
  }
  throw new DomainError('BAD_USER_INPUT', `${argument} must be a numeric id such as "42"`, { field: argument });
}

export function parseOptionalId(value: string | number | null | undefined, argument: string): bigint | undefined {
  return value == null ? undefined : parseId(value, argument);
}

export function parseIds(values: readonly (string | number)[] | null | undefined, argument: string): bigint[] {
  return (values ?? []).map((value, index) => parseId(value, `${argument}[${index}]`));
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `first` of a paginated field: 1 to MAX_PAGE_SIZE. */
export function pageSize(first: number | null | undefined): number {
  const size = first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new DomainError('BAD_USER_INPUT', `first must be a whole number from 1 to ${MAX_PAGE_SIZE}`, { field: 'first' });
  }
  return size;
}

/**
 * Cursors are opaque to clients: base64url of `<kind>:<id>`. Pages are ordered by id, so a cursor
 * stays valid however many rows are inserted or deleted around it.
 */
export function encodeCursor(kind: string, id: bigint): string {
  return Buffer.from(`${kind}:${id}`).toString('base64url');
}

export function decodeCursor(kind: string, cursor: string | null | undefined): bigint | undefined {
  if (cursor == null) return undefined;
  const [prefix, id] = cursor.length <= 64 ? Buffer.from(cursor, 'base64url').toString('utf8').split(':') : [];
  if (prefix === kind && id !== undefined && ID.test(id) && BigInt(id) <= MAX_ID) return BigInt(id);
  throw new DomainError('BAD_USER_INPUT', 'after must be an endCursor this API returned for the same list', { field: 'after' });
}

export interface PageInfo {
  readonly endCursor: string | null;
  readonly hasNextPage: boolean;
}

export interface Page<T> {
  readonly nodes: readonly T[];
  readonly pageInfo: PageInfo;
}

/** `rows` was fetched with `take: size + 1`: the extra row only says there is a next page. */
export function pageOf<R extends { id: bigint }, T>(kind: string, rows: readonly R[], size: number, view: (row: R) => T): Page<T> {
  const shown = rows.slice(0, size);
  const last = shown.at(-1);
  return {
    nodes: shown.map(view),
    pageInfo: { endCursor: last === undefined ? null : encodeCursor(kind, last.id), hasNextPage: rows.length > size },
  };
}
