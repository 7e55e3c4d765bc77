import { z } from 'zod'

// The input of each tool, stated once. `schemas/mcp/<tool>.schema.json` is generated from these
// shapes by `tollgate-schemas` (`pnpm schemas` in this app; a test runs its `--check`), and the
// handlers' argument types are inferred from them: nothing restates a tool's arguments by hand.
// The server registers the published files, not these shapes: the input-validation control
// judges raw arguments against the files before the SDK sees them.

/** The `$id` base of the published schemas. */
export const SCHEMA_ID_BASE = 'https://schemas.tollgate.dev/mcp/'

const slug = (max: number) =>
  z
    .string()
    .max(max)
    .regex(new RegExp(`^[a-z0-9][a-z0-9-]{0,${max - 1}}$`))
const word = z
  .string()
  .max(32)
  .regex(/^[a-z][a-z0-9-]{0,31}$/)
const attribution = z
  .string()
  .max(64)
  .regex(/^[A-Za-z0-9._:-]{1,64}$/)
const token = z
  .string()
  .max(22)
  .regex(/^[A-Za-z0-9_-]{22}$/)
  .describe('A continuation token from an earlier heavy result.')

/**
 * The context every project-scoped call carries, as `schemas/mcp/tool-context.schema.json`
 * states it (a test compares the two). That file is a shared referent, deliberately open: each
 * tool composes it and is closed as a whole.
 */
export const TOOL_CONTEXT_SHAPE = z.object({
  projectId: slug(63).describe('The project the call is scoped to.'),
  snapshotId: z
    .string()
    .max(37)
    .regex(/^snap-[a-z0-9]{1,32}$/)
    .describe(
      'A snapshot of the project to read from. A server that cannot serve the snapshot named refuses the call with the tool error ERR_SNAPSHOT_UNAVAILABLE; it never answers from live data instead. The reference server keeps no snapshots, so it refuses every snapshotId.',
    )
    .optional(),
  agentId: attribution.describe('The calling agent, for attribution.').optional(),
  taskId: attribution.describe("The caller's task, for attribution.").optional(),
})

// Published as a reference to the shared file, so the context is stated in one document.
const context = TOOL_CONTEXT_SHAPE.meta({ $ref: `${SCHEMA_ID_BASE}tool-context.schema.json` })

/** A project-scoped tool's input: the context and the tool's own keys, closed together. */
const scoped = <S extends z.ZodRawShape>(own: S) => z.intersection(context, z.object(own))

/** The input of each tool, by name. */
export const TOOL_INPUTS = {
  'project.list': z.object({}),
  'system.capabilities': z.object({}),
  'knowledge.search': scoped({
    query: z.string().min(1).max(2000),
    limit: z.number().int().min(1).max(50).optional(),
  }),
  'knowledge.get': scoped({ documentId: slug(64) }),
  'knowledge.status': scoped({}),
  knowledge: scoped({
    resource: word.describe(
      "A resource of this route (documents, notes); resolved against the route's mounted set.",
    ),
    action: word.describe('An action of the resource (list, get).'),
    id: slug(64).optional(),
    continuation: token.optional(),
  }).meta({ title: 'knowledge (group dispatcher) input' }),
  admin: z
    .object({
      action: word.describe('stats, export, revoke or grant.'),
      params: z
        .object({
          projectId: slug(63).optional(),
          credentialId: slug(64).optional(),
          capability: z.enum(['read', 'documents', 'notes', 'export', 'admin']).optional(),
        })
        .optional(),
      continuation: token.optional(),
    })
    .meta({ title: 'admin (class dispatcher) input' }),
  'continuation.fetch': z.object({ token }),
  'project.export': scoped({}).meta({ title: 'project.export (two rounds: confirm, then export)' }),
} as const

/** The arguments a tool's handler receives: what its published schema admits. */
export type ToolInput<N extends keyof typeof TOOL_INPUTS> = z.infer<(typeof TOOL_INPUTS)[N]>
