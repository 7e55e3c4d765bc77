/**
 * Delta debugging (Zeller's ddmin, complement-only variant): shrinks `items` to a smaller list
 * for which `fails` still holds, removing chunks of halving size until no single item can go.
 * `fails(items)` must be true on entry. Bounded by `maxTests` predicate calls.
 */
export async function ddmin<T>(
  items: readonly T[],
  fails: (candidate: readonly T[]) => boolean | Promise<boolean>,
  maxTests = 2_000,
): Promise<T[]> {
  let current = [...items]
  let granularity = 2
  let tests = 0
  while (current.length >= 2 && tests < maxTests) {
    const size = Math.ceil(current.length / granularity)
    let reduced = false
    for (let start = 0; start < current.length && tests < maxTests; start += size) {
      const candidate = [...current.slice(0, start), ...current.slice(start + size)]
      tests++
      if (await fails(candidate)) {
        current = candidate
        granularity = Math.max(granularity - 1, 2)
        reduced = true
        break
      }
    }
    if (!reduced) {
      if (granularity >= current.length) break
      granularity = Math.min(granularity * 2, current.length)
    }
  }
  // A last pass that tries dropping each single item (ddmin's 1-minimality).
  for (let i = 0; i < current.length && current.length > 1 && tests < maxTests; ) {
    const candidate = [...current.slice(0, i), ...current.slice(i + 1)]
    tests++
    if (await fails(candidate)) current = candidate
    else i++
  }
  return current
}
