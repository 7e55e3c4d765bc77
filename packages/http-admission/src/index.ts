export type { JsonReviver } from './body-scanner.js'
export {
  createInFlightBudget,
  DEFAULT_IN_FLIGHT_BYTES,
  defaultInFlightBudget,
  type InFlightBudget,
} from './budget.js'
export { HTTP_ADMISSION_CODES, type HttpAdmissionCode } from './codes.js'
export { parseContentLength } from './content-length.js'
export {
  type AdmitContext,
  type AdmitFailure,
  type AdmitResult,
  type AdmitSuccess,
  admitBody,
  type SkipReason,
} from './core.js'
export {
  bodyParserType,
  type HttpAdmissionError,
  toBodyParserError,
  toHttpError,
} from './http-error.js'
export { parseContentEncoding } from './inflate.js'
export { JSON_DROP_IN_DEFAULTS, type JsonOptions, json } from './json.js'
export { parseByteLimit } from './limit.js'
export { matchMediaType } from './media-type.js'
export { type AdmissionMiddleware, type AdmittedRequest, admission } from './middleware.js'
export { admitNodeRequest } from './node.js'
export {
  type BodyEncoding,
  ensureResolved,
  HTTP_ADMISSION_CEILINGS,
  HTTP_ADMISSION_DEFAULTS,
  type HttpAdmissionOptions,
  type OnRefusal,
  type ResolvedHttpAdmissionOptions,
  resolveOptions,
  type VerifyBody,
} from './options.js'
export {
  openPrincipalShare,
  type PrincipalLimits,
  type PrincipalOf,
  type PrincipalShare,
  principalUsage,
} from './principal-shares.js'
export {
  type AdmissionProblem,
  isBusyCode,
  type RefusalBody,
  type RenderRefusal,
  refusalStatus,
  renderProblem,
  toProblem,
} from './problem.js'
export type { BodySource } from './read-source.js'
export {
  closeAfterResponse,
  LINGER_LIMITS,
  refuseUnread,
  type SendRefusalOptions,
  sendRefusal,
} from './respond.js'
export {
  admitWebRequest,
  refusalResponse,
  type WebAdmitFailure,
  type WebAdmitResult,
} from './web.js'
