export { attributeCartAdd, attributePurchase, trackingListeners } from './attribution.ts';
export { RepeatClicks } from './repeat-clicks.ts';
export {
  isUtcDay,
  rawDailyStats,
  rawRows,
  rolledUpRows,
  trackingReport,
  type TrackingReportKey,
  type TrackingReportQuery,
  type TrackingReportRow,
} from './reports.ts';
export {
  fitText,
  insertTrackingEvents,
  MAX_BIGINT,
  TRACKED_ENTITY_TYPES,
  type TrackedEntityType,
  TRACKING_EVENT_TYPES,
  TRACKING_FIELD_LENGTHS,
  type TrackingEventRecord,
  type TrackingEventType,
} from './tracking-events.ts';
