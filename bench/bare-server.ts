import Fastify from 'fastify';

/** The baseline: a Fastify route with nothing around it, on the same Node, in its own process. */
const app = Fastify();
app.get('/bare', async () => ({ status: 'ok' }));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`Server listening at ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
