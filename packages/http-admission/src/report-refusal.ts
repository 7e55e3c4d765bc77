import { type AdmissionError, refusalEvent, reportRefusal } from '@tollgate/json-budget'
import type { BodyAdmission } from './body-admission.js'
import { refusalStatus } from './problem.js'
import { refusalPrincipal } from './refusal-principal.js'

/** What a path knows of the refused call, for its event: the caller's key, its pool, the route. */
export interface BodyRefusalWhere {
  readonly principal?: string | undefined
  readonly pool?: string | undefined
  readonly route?: string | undefined
}

const NOWHERE: BodyRefusalWhere = Object.freeze({})

/** The `control` of every refusal a body admission reports (see `RefusalEvent`). */
export const BODY_ADMISSION_CONTROL = 'body-admission'

/**
 * Reports one refusal of `body` to the control's `onRefusal` hook, if it has one: the code, the
 * status answered (`status`, default the code's; `undefined` for a client abort, which nobody
 * is left to answer), the limit and the option, the route's name and the caller's key as
 * `refusalPrincipal` reports it (never an address). Called by each path once, after it has decided
 * (and, where it writes the answer itself, written) the answer. A hook that throws or rejects
 * is caught. Internal to the package's paths and to `@tollgate/mcp-transport`.
 */
export function reportBodyRefusal(
  body: BodyAdmission,
  error: AdmissionError,
  status: number = refusalStatus(error),
  where: BodyRefusalWhere = NOWHERE,
): void {
  const hook = body.policy.onRefusal
  if (hook === undefined) return
  // A client that aborted is gone: no status reached it.
  const answered = error.code === 'ERR_BODY_ABORTED' ? undefined : status
  reportRefusal(
    hook,
    refusalEvent(
      { code: error.code, status: answered, limit: error.limit, option: error.option },
      BODY_ADMISSION_CONTROL,
      { route: where.route, principal: refusalPrincipal(where.principal, where.pool) },
    ),
  )
}
