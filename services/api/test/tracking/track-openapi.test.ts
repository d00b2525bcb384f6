import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { MAX_BIGINT } from '@shop/domain/tracking';
import { positiveDecimalPattern, renderTrackOpenApi, TRACK_OPENAPI_FILE } from '../../src/tracking/openapi.ts';
import { parseBeacons } from '../../src/tracking/track-body.ts';

describe('the OpenAPI description of POST /track', () => {
  it('is committed as generated (npm run openapi:generate)', async () => {
    expect(await readFile(TRACK_OPENAPI_FILE, 'utf8')).toBe(renderTrackOpenApi());
  });

  it('describes ids as the decimals 1 to max, every one of them and nothing else', () => {
    for (const max of [1n, 9n, 10n, 100n, 4096n, 5309n]) {
      const pattern = new RegExp(positiveDecimalPattern(max));
      for (let n = 0n; n <= max + 120n; n++) expect(pattern.test(n.toString()), `${n} against ${max}`).toBe(n >= 1n && n <= max);
      expect(pattern.test('01')).toBe(false);
      expect(pattern.test('-1')).toBe(false);
    }
  });

  it('allows the very ids the route accepts', () => {
    const pattern = new RegExp(positiveDecimalPattern(MAX_BIGINT));
    const event = (id: string) => ({ event_type: 'click', entity_type: 'banner', entity_id: id, page_url: '/' });
    const max = MAX_BIGINT.toString();
    const ids = [
      '1',
      '42',
      '0',
      '007',
      '',
      ' 1',
      max,
      (MAX_BIGINT - 1n).toString(),
      (MAX_BIGINT + 1n).toString(),
      `${max}0`,
      '9'.repeat(19),
      '1'.repeat(19),
    ];
    for (const id of ids) expect(pattern.test(id), id).toBe('events' in parseBeacons(event(id)));
  });
});
