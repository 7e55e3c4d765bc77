export { chargeJson } from './charge.js'
export { ADMISSION_CODE_LIST, ADMISSION_CODES, type AdmissionCode, statusForCode } from './codes.js'
export {
  AdmissionError,
  type AdmissionErrorDetails,
  type AdmissionErrorJson,
  isAdmissionError,
} from './errors.js'
export {
  ADMISSION_DEFAULTS,
  assertLimit,
  DEFAULT_JSON_LIMITS,
  ensureLimits,
  type JsonLimits,
  resolveLimits,
} from './limits.js'
export {
  type NormalizedResult,
  type NormalizeOptions,
  normalizeResult,
  type ResultProfile,
} from './normalize.js'
export { numberByteLength } from './number-cost.js'
export {
  formatPointer,
  formatPointerSegment,
  MAX_POINTER_LENGTH,
  MAX_POINTER_SEGMENT,
} from './pointer.js'
export { jsonStringByteLength } from './string-cost.js'
export type { JsonCharge } from './walk.js'
