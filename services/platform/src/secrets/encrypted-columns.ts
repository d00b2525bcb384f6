import type { SecretPlace } from './envelope.ts';

/** A column holding envelopes, with the columns naming its row and its key id: what rewrap, status and the start check walk. */
export interface EncryptedColumn {
  readonly table: string;
  /** The row's stable identity, part of every value's associated data. */
  readonly rowColumn: string;
  readonly keyIdColumn: string;
  readonly ciphertextColumn: string;
}

export const STORED_SECRET_VALUES: EncryptedColumn = {
  table: 'stored_secrets',
  rowColumn: 'key',
  keyIdColumn: 'key_id',
  ciphertextColumn: 'ciphertext',
};

/** Every encrypted column of the schema; a new one is added here so rotation covers it. */
export const ENCRYPTED_COLUMNS: readonly EncryptedColumn[] = [STORED_SECRET_VALUES];

export const placeOf = (column: EncryptedColumn, row: string): SecretPlace => ({
  table: column.table,
  column: column.ciphertextColumn,
  row,
});

/** The column's identifiers quoted for SQL. */
export function sqlNamesOf(column: EncryptedColumn): { table: string; row: string; keyId: string; ciphertext: string } {
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  return {
    table: quote(column.table),
    row: quote(column.rowColumn),
    keyId: quote(column.keyIdColumn),
    ciphertext: quote(column.ciphertextColumn),
  };
}
