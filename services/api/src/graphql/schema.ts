import type { IResolvers, MercuriusLoaders } from 'mercurius';

export const typeDefs = /* GraphQL */ `
  type Query {
    "Legacy in-graph liveness check: always the string ok."
    health: String!
  }
`;

export const resolvers: IResolvers = {
  Query: {
    health: () => 'ok',
  },
};

export const loaders: MercuriusLoaders = {};
