// The `@tollgate/mcp-validation/agreement` entry: the test-time and start-up tools that compare
// a published schema with what the handler takes. Kept off the root entry because
// `deriveToolSchemas` loads the SDK's `Client` and `InMemoryTransport`, which a server that only
// validates never needs.

export {
  type AgreementFinding,
  type AgreementOptions,
  type AgreementReport,
  type AgreementRule,
  checkSchemaAgreement,
  type StringLengthUnit,
  UNREAD_CONTEXT_KEYS,
} from './check-agreement.js'
export { deriveToolSchemas } from './derived.js'
export { admitsOnlyBmp } from './regex-modes.js'
