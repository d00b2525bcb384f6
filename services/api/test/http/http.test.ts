import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createTestDatabase } from '../../../../test/infra/isolation.ts';
import { startApi, type RunningApi } from '../support/start-api.ts';

let api: RunningApi;
let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase('api_http');
  api = await startApi({
    DATABASE_URL: database.url,
    CACHE_URL: inject('redisUrl'),
    BROKER_ADDRESS: inject('kafkaBrokers'),
  });
});

afterAll(async () => {
  await api?.close();
  await database?.drop();
});

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${api.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

interface GraphqlErrors {
  readonly errors: ReadonlyArray<{ readonly message: string; readonly extensions: { readonly code: string } }>;
}

async function graphqlErrors(response: Response): Promise<GraphqlErrors['errors']> {
  return ((await response.json()) as GraphqlErrors).errors;
}

async function scrape(): Promise<string> {
  const response = await fetch(`${api.url}/metrics`);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

describe('GET /health', () => {
  it('answers {"status":"ok"}', async () => {
    const response = await fetch(`${api.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('POST /graphql', () => {
  it('answers { health } with the fixed string', async () => {
    const response = await post('/graphql', JSON.stringify({ query: '{ health }' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { health: 'ok' } });
  });

  it('answers an unparseable JSON body with 400 and a GraphQL error', async () => {
    const response = await post('/graphql', '{"query": ');
    expect(response.status).toBe(400);
    const [error] = await graphqlErrors(response);
    expect(error?.message).toMatch(/not valid JSON/);
    expect(error?.extensions.code).toBe('BAD_REQUEST');
  });

  it('answers a query with a syntax error with 400 and a GraphQL error', async () => {
    const response = await post('/graphql', JSON.stringify({ query: '{ health' }));
    expect(response.status).toBe(400);
    const [error] = await graphqlErrors(response);
    expect(error?.message).toMatch(/Syntax Error/);
    expect(error?.extensions.code).toBe('BAD_REQUEST');
  });

  it('answers a query for an unknown field with 400 naming it', async () => {
    const response = await post('/graphql', JSON.stringify({ query: '{ nope }' }));
    expect(response.status).toBe(400);
    const [error] = await graphqlErrors(response);
    expect(error?.message).toMatch(/nope/);
  });

  it('serves no IDE outside development', async () => {
    const response = await fetch(`${api.url}/graphiql`);
    expect(response.status).toBe(404);
  });
});

describe('request ids', () => {
  it('returns the caller X-Request-ID', async () => {
    const response = await fetch(`${api.url}/health`, { headers: { 'x-request-id': 'bff-1234' } });
    expect(response.headers.get('x-request-id')).toBe('bff-1234');
  });

  it('generates one when the caller sends none or an unusable one', async () => {
    const none = await fetch(`${api.url}/health`);
    const bad = await fetch(`${api.url}/health`, { headers: { 'x-request-id': 'a b\tc' } });
    expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('REST errors', () => {
  it('answers an unknown path with 404 and a JSON error', async () => {
    const response = await fetch(`${api.url}/no/such/path`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'No route for GET /no/such/path' } });
  });
});

describe('GET /metrics', () => {
  it('exports the four http_* metrics with their types and labels', async () => {
    await fetch(`${api.url}/health`);
    await post('/graphql', JSON.stringify({ query: '{ health }' }));
    const text = await scrape();

    expect(text).toContain('# TYPE http_requests_total counter');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE http_requests_inprogress gauge');
    expect(text).toContain('# TYPE http_response_size_bytes histogram');
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/health",status="200",service="api"\} \d+$/m);
    expect(text).toMatch(/^http_requests_total\{method="POST",route="\/graphql",status="200",service="api"\} \d+$/m);
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{le="0\.005",service="api",method="GET",route="\/health",status="200"\}/m);
    expect(text).toMatch(/^http_response_size_bytes_sum\{service="api",method="GET",route="\/health",status="200"\} [1-9]/m);
  });

  it('leaves the scrapes themselves out of the http_* metrics', async () => {
    await scrape();
    const text = await scrape();
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/health",status="200",service="api"\} \d+$/m);
    expect(text).not.toMatch(/route="\/metrics"/);
  });

  it('counts unknown paths under one route label, never the raw URL', async () => {
    await fetch(`${api.url}/wp-admin/setup.php`);
    await fetch(`${api.url}/random/${Date.now()}`);
    const text = await scrape();
    expect(text).not.toContain('wp-admin');
    expect(text).not.toContain('/random/');
    expect(text).toMatch(/^http_requests_total\{method="GET",route="unmatched",status="404",service="api"\} ([2-9]|\d\d+)$/m);
  });

  it('exports process and database pool metrics', async () => {
    const text = await scrape();
    expect(text).toContain('# TYPE process_resident_memory_bytes gauge');
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    for (const name of ['db_pool_connections_in_use', 'db_pool_connections_idle', 'db_pool_requests_waiting']) {
      expect(text).toMatch(new RegExp(`^${name}\\{service="api"\\} \\d+$`, 'm'));
    }
    expect(text).toMatch(/^db_pool_connections_max\{service="api"\} 10$/m);
  });
});
