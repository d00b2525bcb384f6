// Behind `npm run payments:test-gateway`: runs the test gateway until SIGINT or SIGTERM (docs/money.md).
import { parseArgs } from 'node:util';
import { EXIT_USAGE, runCommand } from '@shop/runtime';
import { startTestGateway } from './server.ts';

const usage = `usage: cli.ts [--host=127.0.0.1] [--port=4010]
  TEST_GATEWAY_DATABASE_URL  the PostgreSQL database its tables (schema test_gateway) are kept in
  TEST_GATEWAY_API_KEY       the API key it accepts`;
const EXIT_CONFIG = 78;

async function main(): Promise<number> {
  let values: { host: string; port: string };
  try {
    ({ values } = parseArgs({ options: { host: { type: 'string', default: '127.0.0.1' }, port: { type: 'string', default: '4010' } } }));
  } catch {
    console.error(usage);
    return EXIT_USAGE;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(usage);
    return EXIT_USAGE;
  }
  const databaseUrl = process.env.TEST_GATEWAY_DATABASE_URL;
  const apiKey = process.env.TEST_GATEWAY_API_KEY;
  if (!databaseUrl || !apiKey) {
    console.error(`config error: set ${databaseUrl ? '' : 'TEST_GATEWAY_DATABASE_URL '}${apiKey ? '' : 'TEST_GATEWAY_API_KEY'}`.trimEnd());
    console.error(usage);
    return EXIT_CONFIG;
  }
  const gateway = await startTestGateway({ databaseUrl, apiKey, host: values.host, port, log: true });
  console.log(`test gateway listening on ${gateway.url}`);
  await new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await gateway.close();
  return 0;
}

await runCommand(main);
