// The test gateway, for tests and the `npm run payments:test-gateway` command. A tool: the services never
// import it (ESLint refuses it in their sources) and the production images do not carry it.
export { startTestGateway, type RunningTestGateway, type TestGatewayOptions } from './server.ts';
export { TestGatewayControl } from './control-client.ts';
export type { Fault, FaultKind, FaultRule } from './faults.ts';
export type { LoggedRequest, RequestOutcome } from './store.ts';
