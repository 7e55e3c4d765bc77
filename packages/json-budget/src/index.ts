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
  type JsonLimits,
  resolveLimits,
} from './limits.js'
export {
  formatPointer,
  formatPointerSegment,
  MAX_POINTER_LENGTH,
  MAX_POINTER_SEGMENT,
} from './pointer.js'
