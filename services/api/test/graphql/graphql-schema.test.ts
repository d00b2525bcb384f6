import { afterAll, beforeAll, expect, it } from 'vitest';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { openGraphqlApi, type GraphqlApi } from '../support/graphql-harness.ts';

let api: GraphqlApi;

beforeAll(async () => {
  api = await openGraphqlApi('graphql_schema');
});

afterAll(async () => {
  await api?.close();
});

// Sorted, so the snapshot pins what clients can use (types, fields, arguments, defaults and
// descriptions) and not the order in which the areas happen to register their parts.
it('serves the public schema of the snapshot', async () => {
  await expect(printSchema(lexicographicSortSchema(api.app.graphql.schema))).toMatchFileSnapshot('./snapshots/schema.graphql');
});
