// The start-up check: a tool a server registers without a published schema is refused as
// unknown at dispatch and left out of `tools/list` (fail closed), which from the outside looks
// like a tool that silently vanished. The check names it when the server connects instead.

import { boundedName } from './bounded-text.js'

/** The code of {@link UnpublishedToolError} and of the process warning of the `warn` policy. */
export const UNPUBLISHED_TOOL_CODE = 'ERR_TOOL_UNPUBLISHED'

/** What a server connected through the validation control may do about a tool without a schema. */
export type UnpublishedToolPolicy = 'error' | 'warn'

/**
 * Thrown (as a rejection of `connect`) when a server registers tools the validation control
 * has no published schema for, under `unpublishedTools: 'error'`. `tools` are the
 * names, sorted, each as a refusal shows a name (over 64 characters or not printable ASCII:
 * `<N chars>`).
 */
export class UnpublishedToolError extends Error {
  /** Always `ERR_TOOL_UNPUBLISHED`. */
  readonly code = UNPUBLISHED_TOOL_CODE
  /** The registered tools without a published schema, sorted. */
  readonly tools: readonly string[]

  constructor(tools: readonly string[]) {
    super(
      `${UNPUBLISHED_TOOL_CODE}: the server registers tools with no published input schema, ` +
        `which the validation control would refuse as unknown and leave out of tools/list: ` +
        `${tools.join(', ')} (publish a schema for each, or set unpublishedTools: 'warn')`,
    )
    this.name = 'UnpublishedToolError'
    this.tools = Object.freeze([...tools])
  }
}

/**
 * The names of the tools an `McpServer` registers, enabled or not (a disabled tool can be
 * enabled later), on either SDK line (1.32 and 2.x keep them in the same field, an object keyed
 * by name); `undefined` for a server whose tools cannot be seen this way (the low-level
 * `Server`, which registers handlers rather than tools).
 */
export function registeredToolNames(server: unknown): readonly string[] | undefined {
  if (typeof server !== 'object' || server === null) return undefined
  const tools = (server as { _registeredTools?: unknown })._registeredTools
  if (typeof tools !== 'object' || tools === null) return undefined
  return Object.keys(tools)
}

/**
 * The names among `registered` that `published` does not hold, sorted and bounded as a
 * refusal bounds a name.
 */
export function unpublishedTools(
  registered: Iterable<string>,
  published: (name: string) => boolean,
): readonly string[] {
  const missing = new Set<string>()
  for (const name of registered) if (!published(name)) missing.add(boundedName(name))
  return [...missing].sort()
}

/**
 * Applies `policy` to the `missing` names: `error` throws {@link UnpublishedToolError}; `warn`
 * writes one process warning (code `ERR_TOOL_UNPUBLISHED`) per name not in `warned`, and adds
 * it there.
 * @throws UnpublishedToolError under `error` when `missing` is not empty.
 */
export function applyUnpublishedPolicy(
  missing: readonly string[],
  policy: UnpublishedToolPolicy,
  warned: Set<string>,
): void {
  if (missing.length === 0) return
  if (policy === 'error') throw new UnpublishedToolError(missing)
  for (const name of missing) {
    if (warned.has(name)) continue
    warned.add(name)
    process.emitWarning(
      `tool ${name} has no published input schema: it is refused as unknown and left out of tools/list`,
      { code: UNPUBLISHED_TOOL_CODE },
    )
  }
}
