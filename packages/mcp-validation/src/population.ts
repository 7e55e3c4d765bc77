/** The two directions in which registered tools and published schemas can differ. */
export interface PopulationReport {
  /** True when both lists below are empty. */
  readonly ok: boolean
  /** Registered tools with no published schema: unreachable through the control. */
  readonly unpublished: readonly string[]
  /** Published schemas for tools the server does not register: a contract naming nothing. */
  readonly unregistered: readonly string[]
}

/**
 * Compares the registered tool names with the published ones as sets, both directions
 * (a tool without a schema would be refused, a schema without a tool is dead): an addition on either side fails, and so does a removal.
 */
export function checkToolPopulation(
  registered: Iterable<string>,
  published: Iterable<string>,
): PopulationReport {
  const reg = new Set(registered)
  const pub = new Set(published)
  const unpublished = [...reg].filter((name) => !pub.has(name)).sort()
  const unregistered = [...pub].filter((name) => !reg.has(name)).sort()
  return Object.freeze({
    ok: unpublished.length === 0 && unregistered.length === 0,
    unpublished: Object.freeze(unpublished),
    unregistered: Object.freeze(unregistered),
  })
}

/**
 * {@link checkToolPopulation}, throwing when the sets differ: the form a test or a start-up
 * check calls.
 * @throws Error naming the tools on each side that have no counterpart.
 */
export function assertToolPopulation(
  registered: Iterable<string>,
  published: Iterable<string>,
): void {
  const report = checkToolPopulation(registered, published)
  if (report.ok) return
  throw new Error(
    `registered tools and published schemas differ: unpublished [${report.unpublished.join(', ')}], unregistered [${report.unregistered.join(', ')}]`,
  )
}
