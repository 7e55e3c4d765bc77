// Waiting without timing assertions: a pause, and a poll until a condition holds (the test
// timeout bounds it).

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `check()` is true, polling (no timing assertion: the test timeout bounds it). */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5)
}
