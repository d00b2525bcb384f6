import { PASSWORD_MAX_LENGTH } from '@shop/domain/accounts';
import { DomainError, LIMITS } from '@shop/domain/kernel';

export interface Credentials {
  readonly email: string;
  readonly password: string;
}

/** Bounds the strings a sign-in compares before any work is spent on them. */
export function boundedCredentials({ email, password }: Credentials): Credentials {
  if (email.length > LIMITS.email.max)
    throw new DomainError('BAD_USER_INPUT', `email must be at most ${LIMITS.email.max} characters`, { field: 'email' });
  if ([...password].length > PASSWORD_MAX_LENGTH) {
    throw new DomainError('BAD_USER_INPUT', `password must be at most ${PASSWORD_MAX_LENGTH} characters`, { field: 'password' });
  }
  return { email, password };
}
