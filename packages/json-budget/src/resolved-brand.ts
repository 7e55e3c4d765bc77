/**
 * Marks objects a `resolveXOptions` function validated and froze, so passing one back skips
 * validation: a hot path resolves its options once at construction and pays nothing per call.
 * A look-alike object (same fields, not returned by the resolver) is not marked and is
 * validated again.
 */
export interface ResolvedBrand<T extends object> {
  /** Marks `value` as resolved and returns it. */
  mark(value: T): T
  /** True only for an object {@link ResolvedBrand.mark} marked. */
  has(value: unknown): value is T
}

/** A new brand for one options type (one per resolver). */
export function createResolvedBrand<T extends object>(): ResolvedBrand<T> {
  const marked = new WeakSet<object>()
  return {
    mark(value) {
      marked.add(value)
      return value
    },
    has(value): value is T {
      // `WeakSet.prototype.has` is false for a primitive (it never throws), so no type check
      // is needed before it.
      return marked.has(value as object)
    },
  }
}
