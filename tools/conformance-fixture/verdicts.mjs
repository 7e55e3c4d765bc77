// The judging half of compare.mjs, kept apart so it can be tested without running the suite:
// reading a run's summary, and comparing the runs of one requirement set scenario by scenario.

/**
 * Reads the `=== SUMMARY ===` part of the suite's output: each scenario's verdict and check
 * counts, and whether the suite scores it (the "Not scored" list names the others).
 */
export function parseSummary(stdout) {
  const scenarios = new Map()
  const summary = stdout.indexOf('=== SUMMARY ===')
  if (summary < 0) return scenarios
  for (const line of stdout.slice(summary).split('\n')) {
    const m = /^([✓✗]) ([\w/-]+): (\d+) passed, (\d+) failed/.exec(line)
    if (m) {
      const [passed, failed] = [Number(m[3]), Number(m[4])]
      scenarios.set(m[2], {
        pass: m[1] === '✓',
        checks: `${passed}/${passed + failed}`,
        scored: true,
        failures: [],
      })
    }
    const unscored = /^ {2}[✓✗] ([\w/-]+) \(([\w -]+)\)$/.exec(line)
    if (unscored && scenarios.has(unscored[1])) {
      scenarios.get(unscored[1]).scored = false
      scenarios.get(unscored[1]).category = unscored[2]
    }
  }
  return scenarios
}

const cell = (r) => (r === undefined ? 'missing' : `${r.pass ? 'pass' : 'fail'} ${r.checks}`)

/**
 * Compares the runs of one requirement set. `runs[i]` is the scenario map of `modes[i]`; the
 * first mode is the reference (bare). A scenario differs when any run lacks it or its verdict
 * (pass or fail) is not the reference's; scored or not, it is a problem. A scored scenario the
 * reference fails is a problem unless `bareFailures` gives its reason; a listed one that passes
 * is a problem too. A difference is accepted only where `deliberate` names the scenario with
 * the exact set of checks the other mode fails where the reference passes (a tollgate refusal
 * that is stricter than the spec's example on purpose, with its reason); any other failing check
 * in that scenario, or a listed deviation that no longer occurs, is a problem. Returns the table
 * rows, the problems (lines) and the number that differ without a listed reason.
 */
export function compareRuns(set, modes, runs, bareFailures, deliberate = {}) {
  const names = [...new Set(runs.flatMap((run) => [...run.keys()]))]
  const rows = []
  const problems = []
  let differing = 0
  for (const name of names) {
    const [b, ...others] = runs.map((run) => run.get(name))
    const same = b !== undefined && others.every((o) => o !== undefined && o.pass === b.pass)
    const any = [b, ...others].find((r) => r !== undefined)
    const reason = bareFailures[name]
    const allowed = deliberate[name]
    const accepted = !same && allowed !== undefined && isDeliberate(b, others, allowed.checks)
    if (allowed !== undefined && !accepted) {
      problems.push(
        same
          ? `${set} ${name}: the listed deliberate deviation no longer occurs; remove it`
          : `${set} ${name}: differs beyond the listed deliberate checks`,
      )
    }
    if (!same && !accepted) {
      differing++
      problems.push(
        `${set} ${name}: ${modes.map((m, i) => `${m} ${cell(runs[i].get(name))}`).join(', ')}`,
      )
      modes.forEach((mode, i) => {
        const r = runs[i].get(name)
        if (i > 0 && r !== undefined && r.pass !== b?.pass) {
          for (const f of r.failures.slice(0, 5)) problems.push(`    ${mode} ${f}`)
        }
      })
    }
    if (any.scored && b !== undefined && !b.pass && reason === undefined) {
      problems.push(`${set} ${name}: fails ${modes[0]} with no reason listed`)
      for (const f of b.failures.slice(0, 5)) problems.push(`    ${modes[0]} ${f}`)
    }
    if (reason !== undefined && b?.pass) {
      problems.push(`${set} ${name}: passes ${modes[0]} now; remove its listed reason`)
    }
    rows.push([
      `\`${name}\``,
      any.scored ? 'scored' : (any.category ?? 'not scored'),
      ...runs.map((run) => cell(run.get(name))),
      same ? 'same' : accepted ? 'differs (deliberate)' : '**differs**',
      accepted ? allowed.reason : (reason ?? ''),
    ])
  }
  return { rows, problems, differing }
}

/** The ids of the checks a run fails, from its `failures` lines (`<id>: <message>`). */
const failedChecks = (r) => new Set(r.failures.map((f) => f.slice(0, f.indexOf(':'))))

/**
 * Whether every other mode differs from the reference only by failing exactly `checks` (and the
 * reference passing the scenario).
 */
function isDeliberate(reference, others, checks) {
  if (reference === undefined || !reference.pass) return false
  const listed = new Set(checks)
  return others.every((o) => {
    if (o === undefined) return false
    if (o.pass) return true
    const failed = failedChecks(o)
    return failed.size === listed.size && [...failed].every((id) => listed.has(id))
  })
}
