import type { GatewayAnswer, GatewayOperation } from '@shop/platform';
import { DomainError } from '../kernel/index.ts';

/**
 * The operation a gateway approved (or accepted as a pending refund), or the refusal in the caller's
 * terms: a declined card or one that needs 3-D Secure is the shopper's to fix (BAD_USER_INPUT); a
 * gateway that did not answer is UNAVAILABLE (sending the same request again is safe: its key makes
 * the gateway replay what it did); any other refusal is a CONFLICT with the gateway's code.
 */
export function settled(answer: GatewayAnswer, what: string): GatewayOperation & { status: 'approved' | 'pending' } {
  switch (answer.status) {
    case 'approved':
    case 'pending':
      return answer;
    case 'declined':
      throw new DomainError('BAD_USER_INPUT', `the card was declined (${answer.declineCode}): pay with another card`, {
        field: 'card',
        declineCode: answer.declineCode,
      });
    case 'requires_action':
      throw new DomainError(
        'BAD_USER_INPUT',
        'the card asks the shopper to confirm the payment (3-D Secure), which checkout does not support yet: pay with another card',
        {
          field: 'card',
        },
      );
    case 'error':
      if (answer.retryable) {
        throw new DomainError(
          'UNAVAILABLE',
          `the payment gateway did not answer to ${what} (${answer.code}): send the same request again`,
          { gatewayCode: answer.code },
        );
      }
      throw new DomainError('CONFLICT', `the payment gateway refused to ${what} (${answer.code}): ${answer.message}`, {
        gatewayCode: answer.code,
      });
  }
}
