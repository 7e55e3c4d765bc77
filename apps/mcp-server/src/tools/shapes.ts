import { z } from 'zod'
import { CAPABILITIES } from '../config.js'

// The SDK derives each tool's `tools/list` schema from these shapes. The published schemas in
// `schemas/mcp/` say the same thing and close each object; these are plain `z.object`s, which
// drop unknown keys, so that the closure is visibly the input-validation control's work and not
// the SDK's (with validation lifted, an unknown key is served with the key dropped).

const projectId = z
  .string()
  .max(63)
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/)
  .describe('The project the call is scoped to.')
// Read by the handlers so that they can refuse it: the store keeps no snapshots, and a
// published key the shapes dropped would be served live without a word.
const snapshotId = z
  .string()
  .max(37)
  .regex(/^snap-[a-z0-9]{1,32}$/)
  .optional()
const itemId = z
  .string()
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]{0,63}$/)
const name = z
  .string()
  .max(32)
  .regex(/^[a-z][a-z0-9-]{0,31}$/)
const token = z
  .string()
  .max(22)
  .regex(/^[A-Za-z0-9_-]{22}$/)
  .describe('A continuation token from an earlier heavy result.')

function codePoints(s: string): number {
  let n = 0
  for (const _ of s) n += 1
  return n
}

/** No arguments: `project.list`, `system.capabilities`. */
export const EMPTY_SHAPE = {}

/** `knowledge.search`: a query of at most 2,000 characters, 1-50 hits (default 10). */
export const SEARCH_SHAPE = {
  projectId,
  snapshotId,
  // JSON Schema counts code points, zod UTF-16 code units: the published maxLength 2000 may
  // admit 4,000 code units, so the handler's bound is 2,000 code points, checked by refine.
  query: z
    .string()
    .min(1)
    .max(4000)
    .refine((s) => codePoints(s) <= 2000, 'at most 2,000 characters'),
  limit: z.number().int().min(1).max(50).optional(),
}

/** `knowledge.get`: one document by id. */
export const GET_SHAPE = { projectId, snapshotId, documentId: itemId }

/** `knowledge.status`: counts of one project. */
export const STATUS_SHAPE = { projectId, snapshotId }

/**
 * `knowledge`: the group dispatcher. `resource` + `action` compose the target, resolved against
 * the route's mounted resources; both are free names (not enums), so a resource mounted
 * elsewhere and one that exists nowhere pass the schema alike and meet the same refusal.
 */
export const KNOWLEDGE_SHAPE = {
  projectId,
  snapshotId,
  resource: name,
  action: name,
  id: itemId.optional(),
  continuation: token.optional(),
}

/** `admin`: the class dispatcher, `action` + `params` and no resource. */
export const ADMIN_SHAPE = {
  action: name,
  params: z
    .object({
      projectId: projectId.optional(),
      credentialId: itemId.optional(),
      capability: z.enum(CAPABILITIES).optional(),
    })
    .optional(),
  continuation: token.optional(),
}

/** `continuation.fetch`: redeem a token. */
export const FETCH_SHAPE = { token }
