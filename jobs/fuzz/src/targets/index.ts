import type { FuzzTarget } from '../target.js'
import { chargeTarget } from './charge.js'
import { httpTarget } from './http.js'
import { policiesTarget } from './policies.js'
import { preflightTarget } from './preflight.js'
import { stdioTarget } from './stdio.js'

/** Every target, in the order a run visits them. */
export const TARGETS: readonly FuzzTarget<unknown>[] = [
  preflightTarget as FuzzTarget<unknown>,
  policiesTarget as FuzzTarget<unknown>,
  chargeTarget,
  httpTarget as FuzzTarget<unknown>,
  stdioTarget as FuzzTarget<unknown>,
]
