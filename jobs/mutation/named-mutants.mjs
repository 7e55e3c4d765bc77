#!/usr/bin/env node
// Applies each mutant named in issue 7 (and ADR-011 §7.4/§7.6) to src/ in place, runs the
// suite, records which tests fail, and restores the file — always, even on error. A mutant that
// fails no test "survived" and the script exits 1. Run: `pnpm --filter @tollgate/continuation mutants:named`.
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname

const MUTANTS = [
  {
    name: 're-authorization always true',
    file: 'src/continuations.ts',
    from: 'const dimension = authorizeOnRoute(route, target, permissions)',
    to: 'const dimension = undefined as SurfaceDimension | undefined',
  },
  {
    name: 'ceiling-only check (allow/deny skipped)',
    file: 'src/route-view.ts',
    from: "if (allow.length > 0 && !matchesAny(allow, tool.name)) return 'carve_out'\n  if (matchesAny(deny, tool.name)) return 'carve_out'",
    to: '',
  },
  {
    name: 'capability lens skipped',
    file: 'src/route-view.ts',
    from: "if (!holdsAll(tool, permissions)) return 'capability'",
    to: '',
  },
  {
    name: 'outer dispatcher name bound at mint',
    file: 'src/continuations.ts',
    from: 'const recorded = target.name',
    to: 'const recorded = target.dispatcher ?? target.name',
  },
  {
    name: 'caller-supplied action used at redemption',
    file: 'src/continuations.ts',
    from: 'const dimension = authorizeOnRoute(route, target, permissions)',
    to: "const asked = (context as { action?: unknown }).action\n      const named = typeof asked === 'string' ? target.slice(0, target.lastIndexOf('.') + 1) + asked : target\n      const dimension = authorizeOnRoute(route, named, permissions)",
  },
  {
    name: 'action never recorded (§7.6)',
    file: 'src/continuations.ts',
    from: 'action: target.action,',
    to: 'action: undefined,',
  },
]

const report = join(root, '.named-mutants.json')
let survived = 0
for (const m of MUTANTS) {
  const path = join(root, m.file)
  const original = readFileSync(path, 'utf8')
  if (!original.includes(m.from)) {
    console.error(`cannot apply "${m.name}": text not found in ${m.file}`)
    process.exit(2)
  }
  try {
    writeFileSync(path, original.replace(m.from, m.to))
    spawnSync(
      'npx',
      [
        'vitest',
        'run',
        '--config',
        'stryker.vitest.config.mjs',
        '--reporter=json',
        `--outputFile=${report}`,
      ],
      { cwd: root, stdio: 'ignore', env: { ...process.env } },
    )
  } finally {
    writeFileSync(path, original)
  }
  const data = JSON.parse(readFileSync(report, 'utf8'))
  const failed = data.testResults.flatMap((f) =>
    f.assertionResults
      .filter((a) => a.status === 'failed')
      .map((a) => `${f.name.slice(root.length)} › ${a.title}`),
  )
  if (failed.length === 0) survived++
  console.log(`${failed.length > 0 ? 'KILLED  ' : 'SURVIVED'} ${m.name} (${failed.length} failing)`)
  for (const t of failed) console.log(`    ${t}`)
}
rmSync(report, { force: true })
process.exit(survived > 0 ? 1 : 0)
