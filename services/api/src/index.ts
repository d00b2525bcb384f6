// What an extension's GraphQL resolvers may use (extensions/README.md).
export { staffField, staffRead, type StaffCall, type StaffField } from './graphql/staff-fields.ts';
export { parseId } from './graphql/ids.ts';
