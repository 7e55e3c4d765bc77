#!/usr/bin/env node
// Lists the tests of one vitest project the way `vitest list` does (vitest's own collection:
// each test file is imported, `it.each` and template names come out expanded), and writes them
// as JSON to a file: `{ files: [path], tests: [{ file, name, fullName, mode, each }] }` (stdout is
// left to whatever vite or a test file prints while loading).
//
// Usage: node list-tests.mjs <project dir> <output file> <collect|static> [test file ...]
// With test files, only those are listed (a filter, as on the `vitest list` command line).
// `static` is `vitest list --staticParse`: vitest parses each file without importing it, which
// costs nothing but sees only literal names (raw source text, escapes uncooked, `each`
// templates unexpanded); `collect` imports the files and sees every test vitest would run.
//
// Why not `vitest list --json`: it drops every test whose state is `skipped` after collection,
// and a test skipped by an environment condition (`describe.runIf(hasRedisServer)`,
// `it.skipIf(...)`) is still a test a document may cite. Its JSON also gives only the full
// name (`describe > it`), where a citation names the `it()` alone. Both come from the node API
// that `vitest list` is built on.
import { writeFileSync } from 'node:fs'
import { createVitest } from 'vitest/node'

const [dir, out, pass, ...filters] = process.argv.slice(2)
if (dir === undefined || out === undefined || (pass !== 'collect' && pass !== 'static')) {
  console.error(
    'usage: list-tests.mjs <project dir> <output file> <collect|static> [test file ...]',
  )
  process.exit(2)
}

const ctx = await createVitest('test', {
  root: dir,
  watch: false,
  run: true,
  // Collection only: one module graph per worker is several times faster (the SDK, zod and
  // Ajv are imported once instead of per file), and nothing runs, so nothing leaks between files.
  isolate: false,
  // A test file written for globals (and the check's own fixtures) still collects.
  globals: true,
  reporters: [],
  passWithNoTests: true,
})
let failed = false
try {
  const { testModules, unhandledErrors } = await ctx.collect(filters, {
    staticParse: pass === 'static',
  })
  const errors = [...unhandledErrors]
  const files = []
  const tests = []
  for (const module of testModules) {
    files.push(module.moduleId)
    for (const error of module.errors()) errors.push(error)
    for (const test of module.children.allTests()) {
      tests.push({
        file: module.moduleId,
        name: test.name,
        fullName: test.fullName,
        mode: test.options.mode,
        // Produced by `it.each` / `it.for`: a document may cite its template (`%s`, `$name`).
        each: test.task.each === true,
      })
    }
  }
  if (errors.length > 0) {
    failed = true
    for (const error of errors) console.error(error?.stack ?? error?.message ?? String(error))
  } else {
    writeFileSync(out, JSON.stringify({ files, tests }))
  }
} finally {
  await ctx.close()
}
process.exit(failed ? 1 : 0)
