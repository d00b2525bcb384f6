import { Writable } from 'node:stream';
import Fastify from 'fastify';
import type { FastifyBaseLogger } from 'fastify';
import { createLogger } from '@shop/platform';
import { expect, it } from 'vitest';
import { logEveryRequest } from '../../src/http/access-log.ts';

it('logs each request once with its path but never its query string', async () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger({ level: 'INFO', service: 'api', destination: sink });
  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger, disableRequestLogging: true });
  logEveryRequest(app);
  app.get('/graphql', async () => ({ data: null }));
  await app.inject({ method: 'GET', url: '/graphql?query=mutation{loginStaff(email:"a@b.c",password:"hunter22")}&token=s3cr3t' });
  await app.close();

  const completed = lines.filter((line) => line['msg'] === 'request completed');
  expect(completed).toHaveLength(1);
  expect(completed[0]).toMatchObject({ method: 'GET', url: '/graphql', route: '/graphql', status: 200 });
  expect(JSON.stringify(lines)).not.toMatch(/hunter22|s3cr3t|a@b\.c/);
});
