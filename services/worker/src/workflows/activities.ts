import { proxyActivities } from '@temporalio/workflow';
import type { ShopActivities } from '../activities/shop-activities.ts';

/** Reads and single-row changes: quick, retried with backoff until the database answers again. */
export const activities = proxyActivities<ShopActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** A sweep pass writes up to a batch of rows in one transaction. */
export const sweepActivities = proxyActivities<
  Pick<
    ShopActivities,
    'expireStaleReservations' | 'deleteExpiredCarts' | 'expireOverdraftDrafts' | 'expireReturnDrafts' | 'restartStrandedMoney'
  >
>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** Calls that wait for the payment gateway inside their transaction (GATEWAY_TRANSACTION, 30 s). */
export const moneyActivities = proxyActivities<Pick<ShopActivities, 'captureOrderTenders'>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * A refund request's refunds, each a gateway call in its own transaction (GATEWAY_TRANSACTION, 30 s).
 * The activity heartbeats every few seconds while it runs, so a worker that died shows within 15 s
 * and another worker retries it (same keys) instead of waiting for the whole timeout.
 */
export const refundActivities = proxyActivities<Pick<ShopActivities, 'runRefundRequest'>>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** A sweep pass that voids authorizations: one gateway call per tender, each in its own transaction. */
export const moneySweepActivities = proxyActivities<Pick<ShopActivities, 'voidExpiringCardAuths' | 'voidIdleCartTenders'>>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
