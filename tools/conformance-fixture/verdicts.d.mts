/** One scenario of one run: its verdict, `passed/run` checks, whether the suite scores it. */
export interface ScenarioVerdict {
  pass: boolean
  checks: string
  scored: boolean
  category?: string
  failures: string[]
}
export function parseSummary(stdout: string): Map<string, ScenarioVerdict>
export function compareRuns(
  set: string,
  modes: readonly string[],
  runs: readonly Map<string, ScenarioVerdict>[],
  bareFailures: Readonly<Record<string, string>>,
  deliberate?: Readonly<
    Record<string, { readonly checks: readonly string[]; readonly reason: string }>
  >,
): { rows: string[][]; problems: string[]; differing: number }
