// The TypeError a bad option or a bad code table throws, for the tests that assert what it says.

/** The `TypeError` that `fn` throws; any other throw is rethrown, no throw fails the test. */
export function typeErrorOf(fn: () => unknown): TypeError {
  try {
    fn()
  } catch (error) {
    if (error instanceof TypeError) return error
    throw error
  }
  throw new Error('expected a TypeError')
}

/** The message of the `TypeError` that `fn` throws. */
export function messageOf(fn: () => unknown): string {
  return typeErrorOf(fn).message
}
