export {
  type AdmitCall,
  type BodyAdmission,
  type BodyDecision,
  bodyAdmission,
  type RequestHead,
} from './body-admission.js'
export {
  BODY_ADMISSION_DEFAULTS,
  BODY_ADMISSION_OPTIONS,
  type BodyAdmissionOptions,
  type BodyPolicy,
  REST_BODY_BYTES,
  REST_BODY_BYTES_CEILING,
} from './body-options.js'
export type { JsonReviver } from './body-scanner.js'
export { createInFlightBudget, defaultInFlightBudget, type InFlightBudget } from './budget.js'
export {
  ANONYMOUS_POOL,
  CALLER_KEY_OPTIONS,
  type CallerKeyOptions,
  type CallerKeyPolicy,
  type CallerKeys,
  type CallerRequest,
  callerKeys,
} from './caller-key.js'
export { HTTP_ADMISSION_CODES, type HttpAdmissionCode } from './codes.js'
export type { AdmitFailure, AdmitResult, AdmitSuccess, SkipReason } from './core.js'
export type { HttpAdmissionError } from './http-error.js'
export {
  JSON_DEFAULTS,
  JSON_OPTIONS,
  type JsonOptions,
  json,
  type ResolvedJsonOptions,
  resolveJsonOptions,
} from './json.js'
export { type AdmissionMiddleware, type AdmittedRequest, admission } from './middleware.js'
export {
  type AcceptRequest,
  ADMISSION_HOST_OPTIONS,
  type AdmissionHost,
  type AdmissionHostOptions,
  type RefusalMode,
  type VerifyBody,
} from './middleware-options.js'
export { isBodyAdmission } from './narrow-control.js'
export { admitNodeRequest, nodeRequestHead } from './node.js'
export {
  type FleetBodies,
  type FleetBodyAnswer,
  type PrincipalOf,
  principalUsage,
} from './principal-shares.js'
export {
  type AdmissionProblem,
  type RefusalBody,
  type RenderRefusal,
  renderProblem,
  toProblem,
} from './problem.js'
export type { BodySource } from './read-source.js'
export { refusalPrincipal } from './refusal-principal.js'
export {
  closeAfterResponse,
  refuseUnread,
  type SendRefusalOptions,
  sendRefusal,
} from './respond.js'
export {
  admitWebRequest,
  refusalResponse,
  type WebAdmitCall,
  type WebAdmitFailure,
  type WebAdmitResult,
} from './web.js'
