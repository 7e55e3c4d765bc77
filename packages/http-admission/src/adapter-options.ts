// The framework adapters' own options, declared once: a route's name for refusal events. The
// body's options belong to the control an adapter holds; an adapter never re-lists them.
import { defineOptions, type OptionsOf, option } from '@tollgate/json-budget'
import { routeName } from './middleware-options.js'

// One row shared by the three tables, so the check and the README line are the same everywhere.
const ROUTE = option<string | undefined>({
  default: undefined,
  check: routeName,
  shown: 'none',
  doc: "the name of the route the adapter guards (`'notes'`, or the path pattern it is registered on), reported as `route` in the control's refusal events; never taken from the request",
})

/** The options of `fastifyAdmission(body, options)`, beside the control it holds. */
export const FASTIFY_ADMISSION_OPTIONS = defineOptions('fastifyAdmission', { route: ROUTE })

/** The options of `honoAdmission(body, options)`, beside the control it holds. */
export const HONO_ADMISSION_OPTIONS = defineOptions('honoAdmission', { route: ROUTE })

/** The options of `koaAdmission(body, options)`, beside the control it holds. */
export const KOA_ADMISSION_OPTIONS = defineOptions('koaAdmission', { route: ROUTE })

/**
 * The options a framework adapter takes beside its control (the same for Fastify, Hono and
 * Koa). `route`: the route's name, 1–200 printable characters, reported in refusal events.
 * Default: none (events carry no `route`).
 */
export type FrameworkAdmissionOptions = OptionsOf<typeof FASTIFY_ADMISSION_OPTIONS.rows>
