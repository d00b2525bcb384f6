import { describe, expect, it } from 'vitest';
import { issueGuestSessionId, verifyGuestSessionId } from '../../src/auth/guest-sessions.ts';
import { DomainError } from '../../src/kernel/domain-error.ts';

const CURRENT = 'current-secret-key-0123456789abcdefghij';
const PREVIOUS = 'previous-secret-key-0123456789abcdefghi';

describe('guest session ids', () => {
  it('verifies an id signed with SECRET_KEY, or with SECRET_KEY_PREVIOUS after a rotation', () => {
    const id = issueGuestSessionId({ secret: CURRENT });
    expect(verifyGuestSessionId(id, { secret: CURRENT })).toBe(id);
    const beforeRotation = issueGuestSessionId({ secret: PREVIOUS });
    expect(verifyGuestSessionId(beforeRotation, { secret: CURRENT, previousSecret: PREVIOUS })).toBe(beforeRotation);
  });

  it('refuses an id signed with a key the api does not hold as BAD_USER_INPUT naming X-Session-ID', () => {
    const retired = issueGuestSessionId({ secret: PREVIOUS });
    expect(() => verifyGuestSessionId(retired, { secret: CURRENT })).toThrow(DomainError);
    expect(() => verifyGuestSessionId(retired, { secret: CURRENT })).toThrow(
      expect.objectContaining({ code: 'BAD_USER_INPUT', details: { field: 'X-Session-ID', reason: 'not_issued' } }),
    );
  });
});
