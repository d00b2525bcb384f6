import mercurius, { type MercuriusContext } from 'mercurius';
import { PasswordQueueFullError } from '@shop/domain/accounts';

/**
 * Runs work that checks or hashes a password. When the process's queue of them is full
 * (PASSWORD_QUEUE_MAX), the answer is a 503 with Retry-After and UNAVAILABLE with retryAfterSeconds,
 * as the track mutation answers a full buffer: nothing was done, and the same request may be sent later.
 */
export async function withPasswordQueue<T>(context: MercuriusContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof PasswordQueueFullError)) throw error;
    context.reply.header('retry-after', String(error.retryAfterSeconds));
    throw new mercurius.ErrorWithProps(error.message, { code: 'UNAVAILABLE', retryAfterSeconds: error.retryAfterSeconds }, 503);
  }
}
