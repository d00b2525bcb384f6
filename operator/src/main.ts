import { renderShop } from '@shop/cdk8s';
import { runOperatorProcess } from './process.ts';

await runOperatorProcess(renderShop);
