import {
  type AgreementFinding,
  type AgreementRule,
  conjuncts,
  type RelationContext,
  relate,
  type StringLengthUnit,
} from './agreement-relation.js'

export type { AgreementFinding, AgreementRule, StringLengthUnit }

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
  /**
   * How the handler's validator measures a string for `minLength`/`maxLength`. Ajv (the
   * published side) counts code points. zod 4 (4.6.7 measured: `$ZodCheckMaxLength` falls back
   * to `codePointLength`) counts code points too, so the bounds compare directly; zod 3 counts
   * UTF-16 code units (`.length`), and then a published `maxLength` n admits up to 2n units, so
   * it must be at most half the handler's maximum unless a published pattern admits only BMP
   * strings. Default: `'code-points'`.
   */
  readonly handlerLengthUnit?: StringLengthUnit
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
 * Import it from `@tollgate/mcp-validation/agreement`.
 *
 * Checks the asymmetric relation between a tool's published schema
 * (bundled: `registry.bundled(tool)`) and the schema the SDK derives from its handler
 * (`deriveToolSchemas`). The published schema may narrow a value domain (pattern, range,
 * `maxLength`, an enum over a plain type), but:
 * - it may not admit what the handler refuses (`published-wider`: a wider type, a looser
 *   bound, a missing pattern, a value outside the handler's enum, or the handler's own pattern
 *   where the published side may admit astral characters: Ajv reads a pattern with the `u`
 *   flag, the handler's regex (its flags lost in the derived schema) without it);
 * - an enum may not drop a value the handler's enum serves (`enum-narrower`);
 * - the required sets are equal (`required-differs`);
 * - every published key is a handler parameter (`published-key-unhandled`) and every handler
 *   parameter is published (`unpublished-parameter`).
 * The closure axis (`additionalProperties`/`unevaluatedProperties`) is outside the relation by
 * design (the SDK derives no closure; the decorator enforces it), and so are `excludedKeys`.
 * A derived keyword it cannot compare is an `unsupported` finding, never a silent agreement.
 * @throws TypeError when `published` still holds a `$ref`, either side is not a schema, or an
 *   option is malformed.
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
  const lengthUnit = options.handlerLengthUnit ?? 'code-points'
  if (lengthUnit !== 'code-points' && lengthUnit !== 'code-units') {
    throw new TypeError("handlerLengthUnit must be 'code-points' or 'code-units'")
  }
  const ctx: RelationContext = {
    findings: [],
    excluded: new Set(excluded),
    excludedApplied: new Set(),
    lengthUnit,
  }
  relate(conjuncts(published), derived, '', ctx)
  return Object.freeze({
    ok: ctx.findings.length === 0,
    findings: Object.freeze(ctx.findings.map((f) => Object.freeze(f))),
    excludedApplied: Object.freeze([...ctx.excludedApplied].sort()),
  })
}
