// What every image must hold to, whatever it runs: its size budget, its labels, the unprivileged
// user, no package manager or compiler, the programs its deployment runs, and a root filesystem the
// user cannot write outside WRITABLE_DIR. Called inside a test file's describe block.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { APP_DIR, DATA_LINK, RUN_AS, VERSION, WRITABLE_DIR } from '../../../images/contents.ts';
import type { BuiltImage } from '../../../images/build/build-images.ts';
import { sizeReport } from '../../../images/build/size-budget.ts';
import type { ImageContainer } from './image-container.ts';

/** What the image's user can write: each folder's outcome of creating a file in it. */
const WRITE_PROBE = `
const fs = require('node:fs');
const outcome = (dir) => { try { fs.writeFileSync(dir + '/.write-probe', ''); fs.rmSync(dir + '/.write-probe'); return 'written'; } catch (error) { return error.code; } };
console.log(JSON.stringify(Object.fromEntries(process.argv.slice(1).map((dir) => [dir, outcome(dir)]))));
`;
const SYSTEM_DIRS = ['/', '/etc', '/usr/local/bin', '/usr/lib', '/var', '/root', APP_DIR, `${APP_DIR}/node_modules`, `${APP_DIR}/services`];

const TOOLS = ['apt', 'apt-get', 'dpkg', 'npm', 'npx', 'corepack', 'yarn', 'pnpm', 'gcc', 'cc', 'g++', 'c++', 'make', 'perl'];

export function imageChecks(image: () => { built: BuiltImage; container: ImageContainer }): void {
  it('keeps to its size budget', () => {
    const report = sizeReport(image().built);
    console.log(report.line);
    expect(report.withinBudget, report.line).toBe(true);
  });

  it('is labelled with its version and the commit it was built from', () => {
    const { Labels } = image().container.config;
    expect(Labels['org.opencontainers.image.version']).toBe(VERSION);
    expect(Labels['org.opencontainers.image.revision']).toMatch(/^[0-9a-f]{40}$/);
  });

  it('runs as the unprivileged user in the repository root', async () => {
    const { container } = image();
    expect(container.config.User).toBe(RUN_AS);
    const { code, output } = await container.run([
      'node',
      '-p',
      'JSON.stringify({ user: `${process.getuid()}:${process.getgid()}`, cwd: process.cwd() })',
    ]);
    expect(code, output).toBe(0);
    expect(JSON.parse(output)).toEqual({ user: RUN_AS, cwd: APP_DIR });
  });

  it('holds no package manager and no compiler', async () => {
    const { code, output } = await image().container.run(['sh', '-c', `for tool in ${TOOLS.join(' ')}; do command -v "$tool"; done; true`]);
    expect(code).toBe(0);
    expect(output.trim()).toBe('');
  });

  it('carries every program its deployment runs', () => {
    const { built, container } = image();
    const missing = built.image.programs.filter((program) => !existsSync(join(container.rootDir, APP_DIR, program)));
    expect(missing).toEqual([]);
  });

  it(`lets its user write under ${WRITABLE_DIR} only`, async () => {
    const dirs = [...SYSTEM_DIRS, WRITABLE_DIR, `${APP_DIR}/${DATA_LINK.path}`];
    const { code, output } = await image().container.run(['node', '-e', WRITE_PROBE, ...dirs]);
    expect(code, output).toBe(0);
    expect(JSON.parse(output)).toEqual({
      ...Object.fromEntries(SYSTEM_DIRS.map((dir) => [dir, 'EACCES'])),
      [WRITABLE_DIR]: 'written',
      // The embedded database's folder is a link into the writable one.
      [`${APP_DIR}/${DATA_LINK.path}`]: 'written',
    });
  });
}
