import { consumerGroups } from './groups.ts';
import { runConsumerProcess } from './run-process.ts';

await runConsumerProcess({ groups: consumerGroups });
