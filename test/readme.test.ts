import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { repositoryVariables } from './support/extensions.ts';

const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('opens with the two commands a newcomer runs', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/^npm install && npm start\b/m);
    expect(firstBlock).toMatch(/^npm test\b/m);
  });

  it('documents every environment variable the core and the extensions of extensions/ read', async () => {
    const documented = [...readme.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]);
    expect(documented).toEqual((await repositoryVariables()).map((variable) => variable.name));
  });
});
