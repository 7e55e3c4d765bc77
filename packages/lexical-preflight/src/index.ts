export {
  DEFAULT_PREFLIGHT_POLICIES,
  type PreflightOptions,
  type PreflightPolicies,
  type ResolvedPreflightPolicies,
  resolvePreflightOptions,
} from './options.js'
export { createPreflight, type Preflight, preflight } from './preflight.js'
export type { PreflightResult } from './scanner.js'
