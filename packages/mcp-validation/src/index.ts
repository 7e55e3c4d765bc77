export {
  boundedName,
  boundedPointer,
  MAX_LIMIT_BYTES,
  MAX_NAME_BYTES,
  MAX_POINTER_BYTES,
} from './bounded-text.js'
export { bundleSchema } from './bundle.js'
export {
  checkToolCall,
  type ToolArgumentsError,
  type ToolCallVerdict,
  type UnknownToolError,
} from './check-call.js'
export {
  InputValidationTransport,
  REUSED_ID_CODE,
  type ValidationStep,
  withInputValidation,
} from './decorator.js'
export { isModernParams, PROTOCOL_VERSION_META_KEY } from './era.js'
export {
  type McpMessageControls,
  type McpMessageControlsOptions,
  mcpMessageControls,
  type TransportControl,
} from './message-controls.js'
export {
  INPUT_VALIDATION_OPTIONS,
  type InputValidationOptions,
  type ResolvedInputValidationOptions,
  resolveInputValidationOptions,
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
export {
  compareSchemaFolder,
  formatSchemaJson,
  type SchemaFolderReport,
  writeSchemaFolder,
} from './schema-folder.js'
export {
  DEFAULT_SCHEMA_ID_BASE,
  type ToolDefinitionSource,
  type ToolInputSchemaOptions,
  toolDefinitions,
  toolInputSchema,
  toolInputSchemas,
} from './tool-schemas.js'
export { rewriteToolsListResult, type ToolsListRewriteOptions } from './tools-list.js'
export {
  registeredToolNames,
  UNPUBLISHED_TOOL_CODE,
  UnpublishedToolError,
  type UnpublishedToolPolicy,
} from './unpublished-tools.js'
export {
  type ConnectableServer,
  InputValidation,
  inputValidation,
  type ValidationCall,
} from './validation-control.js'
