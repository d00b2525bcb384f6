import { describe, expect, it } from 'vitest';
import { formatRewrapSummary, parseRewrapSummary } from '../src/rewrap-summary.ts';

describe('the rewrap summary', () => {
  it('reads back what it wrote', () => {
    const text = formatRewrapSummary(
      new Map([
        ['Qk9wZ2l0aHViLWtl', 255],
        ['3dR0cmV3cmFwcGVk', 0],
      ]),
      new Date('2026-11-25T14:00:00.123Z'),
    );
    expect(parseRewrapSummary(text)).toEqual({
      countedAt: '2026-11-25T14:00:00.123Z',
      rowsPerKeyId: { Qk9wZ2l0aHViLWtl: 255, '3dR0cmV3cmFwcGVk': 0 },
    });
  });

  it('is no summary when the text is not one', () => {
    for (const text of [
      '',
      'Error: connect ECONNREFUSED',
      '[]',
      '{"rowsPerKeyId":{}}',
      '{"countedAt":"yesterday","rowsPerKeyId":{}}',
      '{"countedAt":"2026-11-25T14:00:00Z","rowsPerKeyId":[]}',
      '{"countedAt":"2026-11-25T14:00:00Z","rowsPerKeyId":{"a":-1}}',
      '{"countedAt":"2026-11-25T14:00:00Z","rowsPerKeyId":{"a":"3"}}',
    ]) {
      expect(parseRewrapSummary(text), text).toBeUndefined();
    }
  });

  it('refuses to be longer than a termination message holds (4096 bytes), which would cut it', () => {
    const keyIds = new Map(Array.from({ length: 200 }, (_, i) => [`key-id-${String(i).padStart(9, '0')}`, 1_000_000]));
    expect(() => formatRewrapSummary(keyIds, new Date())).toThrow(/more than a termination message holds \(4096\)/);
  });
});
