// Composite keys (`principal` × `tool`, `tenant` × `route`) built so that two different tuples
// never give the same key: each part's `\` and `:` are escaped before the parts are joined.

/**
 * Joins `parts` into one limit key with `:`, escaping `\` as `\\` and `:` as `\:` inside each
 * part, so `limitKey('a:b', 'c')` and `limitKey('a', 'b:c')` differ. Use it for a rate per
 * principal × tool: `rate.take(limitKey(principal, tool))`.
 * @throws TypeError when a part is not a string.
 */
export function limitKey(...parts: string[]): string {
  return parts
    .map((part) => {
      if (typeof part !== 'string') throw new TypeError('limitKey: every part must be a string')
      return part.replaceAll('\\', '\\\\').replaceAll(':', '\\:')
    })
    .join(':')
}
