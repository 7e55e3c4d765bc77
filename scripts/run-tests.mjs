#!/usr/bin/env node
// Runs every workspace's tests through turbo, then sums the vitest JSON reports into the one
// totals line CI reads: `tests: N passed, N failed` alone on the last line.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const workspaces = ['packages', 'apps', 'bench', 'tools', 'jobs']
  .flatMap((dir) => {
    const full = join(root, dir)
    if (!existsSync(full)) return []
    if (existsSync(join(full, 'package.json'))) return [full]
    return readdirSync(full).map((name) => join(full, name))
  })
  .filter((dir) => existsSync(join(dir, 'package.json')))

for (const dir of workspaces) rmSync(join(dir, '.vitest-report.json'), { force: true })

const extra = process.argv.slice(2)

function firstLine(messages) {
  const text = (messages ?? []).find((m) => typeof m === 'string' && m.length > 0) ?? ''
  const line = text.split('\n').find((l) => l.trim().length > 0) ?? ''
  return line.length > 300 ? `${line.slice(0, 300)}...` : line
}
const run = spawnSync('npx', ['turbo', 'run', 'test', '--concurrency=2', '--continue', ...extra], {
  cwd: root,
  stdio: 'inherit',
})

let passed = 0
let failed = 0
let skipped = 0
const failures = []
for (const dir of workspaces) {
  const report = join(dir, '.vitest-report.json')
  if (!existsSync(report)) continue
  const data = JSON.parse(readFileSync(report, 'utf8'))
  passed += data.numPassedTests ?? 0
  failed += data.numFailedTests ?? 0
  // A test file that failed with no failed test in it (it did not load, or a hook threw)
  // counts once; a file whose tests failed is already counted by them. (numFailedTestSuites
  // also counts each describe block holding a failed test, so adding it counted them twice.)
  for (const file of data.testResults ?? []) {
    const tests = file.assertionResults ?? []
    const where = file.name?.startsWith(root) ? file.name.slice(root.length) : file.name
    for (const t of tests) {
      if (t.status === 'failed')
        failures.push(`${where}: ${t.fullName} -- ${firstLine(t.failureMessages)}`)
    }
    if (file.status === 'failed' && !tests.some((t) => t.status === 'failed')) {
      failed += 1
      failures.push(`${where}: (the file failed outside its tests) -- ${firstLine([file.message])}`)
    }
  }
  skipped += (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0)
}
// The failed tests, one line each, just above the totals, so the tail of a CI log names them.
for (const line of failures) console.log(`failed: ${line}`)
const status = run.status ?? 1
if (status !== 0 && failed === 0) failed = 1
const tail = skipped > 0 ? `, ${skipped} skipped` : ''
console.log(`tests: ${passed} passed, ${failed} failed${tail}`)
process.exit(status)
