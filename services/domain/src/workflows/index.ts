export {
  CAPTURE_REFUSED,
  PERIODIC_WORKFLOWS,
  type PeriodicWorkflow,
  QUERIES,
  SIGNALS,
  type SweepBatch,
  type SweepWorkflowType,
  TASK_QUEUE,
  WORKFLOW_TYPES,
  workflowIds,
} from './contract.ts';
