export { chargeJson } from './charge.js'
export { JSON_BUDGET_CODES, type JsonBudgetCode } from './codes.js'
export {
  type AdmissionCode,
  AdmissionError,
  type AdmissionErrorDetails,
  type AdmissionErrorJson,
  isAdmissionError,
} from './errors.js'
export {
  ADMISSION_DEFAULTS,
  JSON_LIMIT_KEYS,
  JSON_LIMITS,
  JSON_LIMITS_DEFAULTS,
  type JsonLimitsOptions,
  type ResolvedJsonLimits,
  resolveJsonLimits,
} from './limits.js'
export {
  NORMALIZE_RESULT_OPTIONS,
  type NormalizedResult,
  type NormalizeResultOptions,
  normalizeResult,
  type ResultProfile,
} from './normalize.js'
export { numberByteLength } from './number-cost.js'
export {
  defineOptions,
  type OptionRow,
  type OptionRows,
  type OptionsOf,
  type OptionTable,
  type OptionValue,
  option,
  type ResolvedOf,
  type RowChanges,
} from './option-table.js'
export {
  assertLimit,
  booleanOption,
  functionOption,
  integerOption,
  oneOfOption,
} from './option-validators.js'
export {
  formatPointer,
  formatPointerSegment,
  MAX_POINTER_LENGTH,
  MAX_POINTER_SEGMENT,
} from './pointer.js'
export {
  defineRefusalCodes,
  listRefusalCodes,
  type RefusalCodeSpec,
  type RegisteredRefusalCode,
  refusalCodeSpec,
} from './refusal-codes.js'
export {
  type CounterConstructorLike,
  REFUSAL_COUNTER_NAME,
  type RefusalCounterLabel,
  refusalCounter,
} from './refusal-counter.js'
export {
  ON_REFUSAL_OPTION,
  type RefusalEvent,
  type RefusalFacts,
  type RefusalHook,
  type RefusalWhere,
  refusalEvent,
  reportRefusal,
} from './refusal-event.js'
export {
  REFUSAL_SPAN_EVENT,
  refusalHooks,
  refusalSpanEvents,
  type TraceLike,
} from './refusal-spans.js'
export {
  createRepeatWindow,
  REPEAT_WINDOW_OPTIONS,
  type RepeatReport,
  type RepeatWindow,
  type RepeatWindowOptions,
} from './repeat-window.js'
export { createResolvedBrand, type ResolvedBrand } from './resolved-brand.js'
export { jsonStringByteLength } from './string-cost.js'
export type { JsonCharge } from './walk.js'
