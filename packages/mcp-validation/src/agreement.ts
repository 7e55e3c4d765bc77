// The `@tollgate/mcp-validation/agreement` entry: the test-time and start-up tools that compare
// a published schema with what the handler takes. Kept off the root entry: a server that only
// validates never needs them.

export {
  type AgreementFinding,
  type AgreementOptions,
  type AgreementReport,
  type AgreementRule,
  checkSchemaAgreement,
  type StringLengthUnit,
  UNREAD_CONTEXT_KEYS,
} from './check-agreement.js'
export { type DerivableServer, deriveToolSchemas } from './derived.js'
export { admitsOnlyBmp } from './regex-modes.js'
