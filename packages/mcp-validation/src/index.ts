// Deprecated here (use `@tollgate/mcp-validation/agreement`); kept for one release because they
// load nothing beyond Ajv. `deriveToolSchemas` is on the subpath only.

export {
  boundedName,
  boundedPointer,
  MAX_LIMIT_BYTES,
  MAX_NAME_BYTES,
  MAX_POINTER_BYTES,
} from './bounded-text.js'
export { bundleSchema } from './bundle.js'
export {
  type AgreementFinding,
  type AgreementOptions,
  type AgreementReport,
  type AgreementRule,
  checkSchemaAgreement,
  type StringLengthUnit,
  UNREAD_CONTEXT_KEYS,
} from './check-agreement.js'
export { checkToolCall, type ToolCallVerdict } from './check-call.js'
export { InputValidationTransport, withInputValidation } from './decorator.js'
export {
  DEFAULT_ARGUMENT_LIMITS,
  type InputValidationOptions,
  type ResolvedInputValidationOptions,
  resolveOptions,
} from './options.js'
export { assertToolPopulation, checkToolPopulation, type PopulationReport } from './population.js'
export {
  type ArgumentsRefusal,
  MAX_REFUSAL_BYTES,
  REUSED_ID_ERROR,
  renderArgumentsRefusal,
  type ToolErrorResult,
  UNKNOWN_TOOL_ERROR,
} from './refusal.js'
export type { RefusalEvent, RefusalHook, RefusalReason } from './refusal-event.js'
export {
  createSchemaRegistry,
  DRAFT_2020_12,
  loadSchemaRegistry,
  type SchemaRegistry,
  type SchemaRegistryOptions,
  type SchemaViolation,
} from './registry.js'
export {
  readSchemaDirectory,
  SCHEMA_FILE_SUFFIX,
  type SchemaDocument,
  SHARED_SCHEMA_FILES,
  toolNameForFile,
} from './schema-files.js'
export { rewriteToolsListResult } from './tools-list.js'
