import { type BodyAdmission, bodyAdmission } from './body-admission.js'
import { BODY_ADMISSION_OPTIONS } from './body-options.js'

/** What a framework adapter may tighten on a control it holds: never loosen. */
export interface Narrowing {
  /** A lower cap (a Fastify route's `bodyLimit`); a higher one is ignored. */
  readonly maxBytes?: number | undefined
  /** `'refuse'` to refuse `__proto__` keys whatever the control says (Fastify's default). */
  readonly protoKeys?: 'refuse' | undefined
}

/**
 * A control with the policy of `body`, tightened as `narrowing` says: the same in-flight
 * budget, deadlines and preflight policies; `body` itself when nothing changes. Derived from
 * the held control's resolved policy, so a host never re-lists its options.
 * @internal
 */
export function narrowControl(body: BodyAdmission, narrowing: Narrowing): BodyAdmission {
  const policy = body.policy
  const maxBytes = Math.min(policy.maxBytes, narrowing.maxBytes ?? policy.maxBytes)
  const protoKeys = narrowing.protoKeys ?? policy.protoKeys
  if (maxBytes === policy.maxBytes && protoKeys === policy.protoKeys) return body
  return bodyAdmission({
    ...BODY_ADMISSION_OPTIONS.pick(policy),
    // `maxBytes` and `types` already hold what `limit` and `type` set.
    limit: undefined,
    type: undefined,
    maxBytes,
    protoKeys,
  })
}

/**
 * Whether `value` is a body control built by `bodyAdmission()` (its `classify`, `admit` and
 * `policy`), for hosts that take one and must refuse anything else at start-up.
 */
export function isBodyAdmission(value: unknown): value is BodyAdmission {
  const b = value as Partial<BodyAdmission> | null
  return (
    typeof b === 'object' &&
    b !== null &&
    typeof b.classify === 'function' &&
    typeof b.admit === 'function' &&
    typeof b.policy === 'object'
  )
}

/** Throws unless `body` is a control built by `bodyAdmission()`. @internal */
export function requireControl(host: string, body: unknown): asserts body is BodyAdmission {
  if (!isBodyAdmission(body)) {
    throw new TypeError(`${host} takes a control built by bodyAdmission()`)
  }
}
