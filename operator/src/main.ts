// `node operator/src/main.ts`, as the chart's Deployment runs it.
import { restartWithContainerHeap } from './heap.ts';

// First, before the Kubernetes client and the renderer are loaded: outside a container this process
// is replaced by one with the heap it has in its Deployment.
restartWithContainerHeap();

const { renderShop } = await import('@shop/cdk8s');
const { runOperatorProcess } = await import('./process.ts');
await runOperatorProcess(renderShop);
