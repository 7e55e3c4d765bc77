export { PREFLIGHT_CODES, type PreflightCode } from './codes.js'
export {
  PREFLIGHT_DEFAULTS,
  PREFLIGHT_OPTIONS,
  PREFLIGHT_POLICIES,
  type PreflightOptions,
  type PreflightPolicies,
  type ResolvedPreflightOptions,
  resolvePreflightOptions,
} from './options.js'
export { createPreflight, type Preflight, preflight } from './preflight.js'
export type { PreflightResult } from './scanner.js'
