import { runWorkerProcess } from './run-process.ts';

await runWorkerProcess();
