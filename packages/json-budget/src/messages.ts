// A message is built only from the code's own words, the limit and the option name, never
// from the input, so it cannot echo a caller's bytes and its length is bounded.

/** Builds the bounded, non-echoing message for a refusal. */
export function formatMessage(
  what: string,
  limit: number | undefined,
  option: string | undefined,
): string {
  let message = what
  if (limit !== undefined) message += ` (limit ${limit})`
  if (option !== undefined && limit !== undefined) message += `; raise ${option} to admit more`
  return message
}
