export const typeDefs = /* GraphQL */ `
  type Query {
    "Legacy in-graph liveness check: always the string ok."
    health: String!
  }
`;

export const resolvers = {
  Query: {
    health: () => 'ok',
  },
};
