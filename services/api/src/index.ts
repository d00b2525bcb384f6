// What an extension's GraphQL resolvers may use (extensions/README.md).
export { staffField, staffRead, type StaffCall } from './graphql/staff-fields.ts';
export { parseId } from './graphql/ids.ts';
