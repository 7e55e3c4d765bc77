// Waiting for an outcome without a timing assertion: poll a probe until it holds or a generous
// deadline passes, and let the test assert the boolean.

/**
 * Polls `check` every `intervalMs` (default 50 ms) until it returns true (resolves `true`) or
 * `deadlineMs` (default 5 s) passed (resolves `false`). The deadline bounds a wait for an event;
 * it is not a speed claim.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  deadlineMs = 5000,
  intervalMs = 50,
): Promise<boolean> {
  const end = Date.now() + deadlineMs
  while (Date.now() < end) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
  return false
}
