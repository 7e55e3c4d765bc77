export type { JsonReviver } from './body-scanner.js'
export { createInFlightBudget, defaultInFlightBudget, type InFlightBudget } from './budget.js'
export { HTTP_ADMISSION_CODES, type HttpAdmissionCode } from './codes.js'
export {
  type AdmitContext,
  type AdmitFailure,
  type AdmitResult,
  type AdmitSuccess,
  admitBody,
  type SkipReason,
} from './core.js'
export type { HttpAdmissionError } from './http-error.js'
export { JSON_DEFAULTS, type JsonOptions, json, resolveJsonOptions } from './json.js'
export { type AdmissionMiddleware, type AdmittedRequest, admission } from './middleware.js'
export { admitNodeRequest } from './node.js'
export {
  HTTP_ADMISSION_DEFAULTS,
  type HttpAdmissionOptions,
  type OnRefusal,
  type ResolvedHttpAdmissionOptions,
  type VerifyBody,
} from './options.js'
export { type PrincipalOf, principalUsage } from './principal-shares.js'
export {
  type AdmissionProblem,
  type RefusalBody,
  type RenderRefusal,
  renderProblem,
  toProblem,
} from './problem.js'
export type { BodySource } from './read-source.js'
export { resolveHttpAdmissionOptions } from './resolve-options.js'
export {
  closeAfterResponse,
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
