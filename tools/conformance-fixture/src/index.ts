export { bareFixtureHandler, type RouteHandler } from './bare.js'
export { type FixtureFactory, fixtureServerFactory } from './fixture-server.js'
export { FIXTURE_SCHEMAS, guardedFixtureHandler } from './guarded.js'
export type { FixtureNotifier } from './tools.js'
