// The baselines of the /track benchmark, each its own process like the api, on the same Node:
//   bare    POST /track parses the beacon and answers 202, nothing else: the most a Fastify route can do;
//   anchor  POST /track awaits one INSERT of the beacon before answering 202, as trackers that write
//           every hit do (a pool of DATABASE_POOL_MAX connections, 10 like the api's).
import Fastify from 'fastify';
import pg from 'pg';

const mode = process.argv[2];
const app = Fastify();

const INSERT = `
  INSERT INTO tracking_events (event_type, entity_type, entity_id, user_id, customer_group_id, is_authenticated, session_id,
                               ip_address, user_agent, page_url, referrer_url, is_repeat, channel_id, created_at)
  VALUES ($1, $2, $3, NULL, NULL, false, $4, $5, $6, $7, $8, false, NULL, now())`;

interface Beacon {
  readonly event_type?: unknown;
  readonly entity_type?: unknown;
  readonly entity_id?: unknown;
  readonly page_url?: unknown;
  readonly referrer_url?: unknown;
}

if (mode === 'bare') {
  app.post('/track', async (_request, reply) => reply.code(202).send({ accepted: 1 }));
} else if (mode === 'anchor') {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_MAX ?? 10) });
  app.addHook('onClose', async () => pool.end());
  app.post('/track', async (request, reply) => {
    const beacon = request.body as Beacon;
    await pool.query(INSERT, [
      beacon.event_type,
      beacon.entity_type,
      String(beacon.entity_id),
      request.headers['x-session-id'],
      request.ip,
      request.headers['user-agent'] ?? '',
      beacon.page_url,
      beacon.referrer_url ?? '',
    ]);
    return reply.code(202).send({ accepted: 1 });
  });
} else {
  process.stderr.write(`usage: track-servers.ts bare|anchor (got ${String(mode)})\n`);
  process.exit(64);
}

const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`Server listening at ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
