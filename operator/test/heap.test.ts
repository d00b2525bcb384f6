import { describe, expect, it } from 'vitest';
import { CONTAINER_HEAP_FLAGS, heapFlagsToAdd, type NodeStart } from '../src/heap.ts';

const GB = 2 ** 30;
/** A 24 GB host without a container limit: libuv reports UINT64_MAX, i.e. more than the host has. */
const host: NodeStart = { execArgv: [], nodeOptions: undefined, constrainedMemory: 2 ** 64, totalMemory: 24 * GB };

describe('heapFlagsToAdd', () => {
  it('gives a process without a container limit the old space of the 256 MiB container, and small semi-spaces', () => {
    expect(heapFlagsToAdd(host)).toEqual(['--max-old-space-size=256', '--max-semi-space-size=2']);
    expect(heapFlagsToAdd({ ...host, constrainedMemory: 0 })).toEqual(CONTAINER_HEAP_FLAGS);
  });

  it('adds nothing inside a container: Node sized the heap from its limit', () => {
    expect(heapFlagsToAdd({ ...host, constrainedMemory: 256 * 2 ** 20 })).toEqual([]);
    expect(heapFlagsToAdd({ ...host, constrainedMemory: 8 * GB })).toEqual([]);
  });

  it('adds nothing once started with them, so it starts again at most once', () => {
    expect(heapFlagsToAdd({ ...host, execArgv: [...CONTAINER_HEAP_FLAGS, '--import=x'] })).toEqual([]);
  });

  it('leaves a heap chosen on the command line or in NODE_OPTIONS alone, in any spelling', () => {
    expect(heapFlagsToAdd({ ...host, execArgv: ['--max-old-space-size=1024'] })).toEqual([]);
    expect(heapFlagsToAdd({ ...host, execArgv: ['--max_semi_space_size=8'] })).toEqual([]);
    expect(heapFlagsToAdd({ ...host, nodeOptions: '--enable-source-maps --max-old-space-size-percentage=50%' })).toEqual([]);
    expect(heapFlagsToAdd({ ...host, nodeOptions: '--no-optimize-for-size' })).toEqual([]);
    expect(heapFlagsToAdd({ ...host, execArgv: ['--trace-gc'], nodeOptions: '--enable-source-maps' })).toEqual(CONTAINER_HEAP_FLAGS);
  });
});
