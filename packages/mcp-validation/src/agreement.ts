import {
  type AgreementFinding,
  type AgreementRule,
  conjuncts,
  type RelationContext,
  relate,
} from './agreement-relation.js'

export type { AgreementFinding, AgreementRule }

/**
 * The context keys a tool-context publishes and no reference handler reads (`snapshotId`,
 * `agentId`, `taskId`): excluded by name from the relation's key and required rules.
 */
export const UNREAD_CONTEXT_KEYS: readonly string[] = Object.freeze([
  'snapshotId',
  'agentId',
  'taskId',
])

/** Options of {@link checkSchemaAgreement}. */
export interface AgreementOptions {
  /**
   * Top-level keys the published schema may carry with no handler parameter (published context
   * the handler does not read). A key listed here that the handler does take is compared as
   * usual. Default: {@link UNREAD_CONTEXT_KEYS}.
   */
  readonly excludedKeys?: readonly string[]
}

/** The result of {@link checkSchemaAgreement}. */
export interface AgreementReport {
  /** True when there are no findings. */
  readonly ok: boolean
  /** Every disagreement, in the order found. */
  readonly findings: readonly AgreementFinding[]
  /** The excluded keys the exclusion actually applied to (published, with no parameter). */
  readonly excludedApplied: readonly string[]
}

/**
 * Checks the asymmetric relation of ADR-0031 decision 6 between a tool's published schema
 * (bundled: `registry.bundled(tool)`) and the schema the SDK derives from its handler
 * (`deriveToolSchemas`). The published schema may narrow a value domain (pattern, range,
 * `maxLength`, an enum over a plain type), but:
 * - it may not admit what the handler refuses (`published-wider`: a wider type, a looser
 *   bound, a missing pattern, a value outside the handler's enum);
 * - an enum may not drop a value the handler's enum serves (`enum-narrower`);
 * - the required sets are equal (`required-differs`);
 * - every published key is a handler parameter (`published-key-unhandled`) and every handler
 *   parameter is published (`unpublished-parameter`).
 * The closure axis (`additionalProperties`/`unevaluatedProperties`) is outside the relation by
 * design (the SDK derives no closure; the decorator enforces it), and so are `excludedKeys`.
 * A derived keyword it cannot compare is an `unsupported` finding, never a silent agreement.
 * @throws TypeError when `published` still holds a `$ref` or either side is not a schema.
 */
export function checkSchemaAgreement(
  published: unknown,
  derived: unknown,
  options: AgreementOptions = {},
): AgreementReport {
  const excluded = options.excludedKeys ?? UNREAD_CONTEXT_KEYS
  if (!Array.isArray(excluded) || excluded.some((k) => typeof k !== 'string')) {
    throw new TypeError('excludedKeys must be an array of strings')
  }
  const ctx: RelationContext = {
    findings: [],
    excluded: new Set(excluded),
    excludedApplied: new Set(),
  }
  relate(conjuncts(published), derived, '', ctx)
  return Object.freeze({
    ok: ctx.findings.length === 0,
    findings: Object.freeze(ctx.findings.map((f) => Object.freeze(f))),
    excludedApplied: Object.freeze([...ctx.excludedApplied].sort()),
  })
}
