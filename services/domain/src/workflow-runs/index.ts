export { recordWorkflowFault, type WorkflowFault, type WorkflowFaultFilter, workflowFaults, type WorkflowRun } from './faults.ts';
export { pacedPass, sweepPace, type SweepPace } from './sweep-pace.ts';
