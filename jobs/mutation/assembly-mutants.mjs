#!/usr/bin/env node
// pnpm mutants:wasm [--files f,...] [--sample N] [--seed S] [--minutes m]
//                   [--tests a.test.ts,b.test.ts] [--ids id,...] [--retry | --retry-timeouts] [--list]
//
// Mutation evidence for the WebAssembly scanner of @tollgate/lexical-preflight, which Stryker
// cannot give: Stryker mutates the TypeScript under `src/`, while the scanner that runs in
// production is compiled from `assembly/scanner.ts`, `assembly/bytes.ts` and `assembly/keys.ts`
// (AssemblyScript) into the committed `src/wasm-bytes.ts`. `--files` takes some of them
// (default: `assembly/scanner.ts,assembly/bytes.ts`, the set earlier samples were drawn from, so
// a seed names the same sample as before; the key kernel is `--files assembly/keys.ts`).
//
// Sites are found on a token scan of each file that skips `//` and `/* */` comments and quoted
// strings. Every mutant is ONE change at ONE site; the operator set:
//   ROR  `<`↔`<=`, `>`↔`>=` (not the angle brackets of a cast or a type argument, `<u32>x`,
//        `load<u8>(…)`, which the scan pairs as type brackets)
//   EQ   `===`↔`!==`, `==`↔`!=`
//   LOG  `&&`↔`||`
//   LIT  an integer literal n → n+1 and n−1 (0 → 1 only; hex stays hex), except the literal of a
//        top-level `const NAME = n` (the memory layout, state-slot, refusal and state numbers:
//        named constants whose values are the interface with src/wasm-instance.ts, not logic)
//   NOT  a `!` before an operand removed
//   RET  a refusal return removed: `return fail(…)`, `return E_…` and `return -1` (numberEnd's
//        "not whole") become `{}`
//   BRK  a `break` or `continue` removed (becomes `{}`)
//   COND the condition of an `if` or a `while` forced to `true`, and to `false`
// Mutants are listed in file order, site order, operator order, so an id (`file:line:col:op:n`)
// names the same mutant on the same source; `--sample N --seed S` takes the first N of a seeded
// permutation (mulberry32, Fisher–Yates) and runs them in that order, so a run cut short by
// `--minutes` still leaves a uniform sample, and a larger N with the same seed extends a smaller.
//
// Each mutant is written into a throw-away copy of the package (package-copy.mjs; the real files
// are never written), the copy's `src/wasm-bytes.ts` is rebuilt by the package's own
// `scripts/build-wasm.mjs` (a mutant the compiler refuses is CompileError, not counted; one whose
// module is byte-identical to the unmutated build is Equivalent, by construction, and runs no
// test), and the tests that judge the mutated file run there with `--bail 1` (default: the
// file's set in TESTS_BY_FILE below, the differential test against the JS scanner first;
// `--tests` names others for every file). Killed = a test failed; a run longer
// than 3× the clean run + 60 s, in CPU seconds of the test run's process group (the machine is
// shared: wall-clock time would call a starved run hung), is Timeout (counted as killed, as
// Stryker does). Two mutants
// that compile to the same module share a verdict. fast-check is told to stop at the first
// counterexample in the copy (no shrinking): a failure is a failure either way, found sooner.
// The unmutated copy runs first and must pass.
//
// Verdicts go to packages/lexical-preflight/reports/mutation/assembly.json (git-ignored), keyed
// by mutant id and the source file's hash, so a later run goes on where one stopped; `--retry`
// runs the Survived and Timeout ones again (after a test was added; `--retry-timeouts` only
// the Timeout ones), `--ids` runs only the named mutants (again),
// `--list` prints the mutant list and runs nothing. The summary gives the mutants generated,
// sampled, killed, survived, compile errors, equivalents and the score killed/(killed+survived)
// with a 95% Wilson interval when the run is a sample.
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { copyPackage, removeCopy } from './package-copy.mjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** The package whose WebAssembly sources are mutated. */
export const PACKAGE_DIR = join(ROOT, 'packages', 'lexical-preflight')
/** The mutated sources, relative to the package. */
export const FILES = ['assembly/scanner.ts', 'assembly/bytes.ts', 'assembly/keys.ts']
/** The files mutated when `--files` is not given: the set of the runs recorded before keys.ts. */
export const DEFAULT_FILES = ['assembly/scanner.ts', 'assembly/bytes.ts']
/**
 * The tests that judge the WebAssembly scanner, by default: the differential test against the
 * JS scanner, and the package's tests that run `createPreflight` (the WebAssembly scanner unless
 * a key policy is on) on JSONTestSuite, Table 3-7 UTF-8, the limits and generated JSON, and this
 * job's own `test/wasm-mutants*.test.ts`. Not the tests of the JS scanner alone, the build
 * check (the copy's module is rebuilt from the mutant, so it passes) or the `--jitless` child.
 */
export const DEFAULT_TESTS = [
  'test/wasm-scanner.differential.test.ts',
  'test/corpus.test.ts',
  'test/utf8.test.ts',
  'test/preflight.test.ts',
  'test/preflight.property.test.ts',
  'test/wasm-mutants',
]
/**
 * The tests that judge the key kernel (assembly/keys.ts): it runs only with a key policy on,
 * which none of DEFAULT_TESTS' WebAssembly runs turn on. The differential test of the key
 * policies against the JS scanner and JSON.parse first, then the tests that run `createPreflight`
 * with `duplicateKeys` or `protoKeys` refused (the WebAssembly scanner on a module of its own).
 */
export const KEY_TESTS = [
  'test/wasm-keys.differential.test.ts',
  'test/policies.test.ts',
  'test/key-capture.test.ts',
  'test/scanner-key-policy-tokens.test.ts',
  'test/wasm-mutants',
]
/** The default test set of each mutated file. */
export const TESTS_BY_FILE = {
  'assembly/scanner.ts': DEFAULT_TESTS,
  'assembly/bytes.ts': DEFAULT_TESTS,
  'assembly/keys.ts': KEY_TESTS,
}
const REPORT = join(PACKAGE_DIR, 'reports', 'mutation', 'assembly.json')

const PUNCTUATORS = [
  '>>>=',
  '===',
  '!==',
  '>>>',
  '<<=',
  '>>=',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '&=',
  '|=',
  '^=',
  '<<',
  '>>',
  '=>',
]
const TYPES = new Set([
  'i8',
  'i16',
  'i32',
  'i64',
  'u8',
  'u16',
  'u32',
  'u64',
  'usize',
  'isize',
  'bool',
  'f32',
  'f64',
  'v128',
])

/** Tokens of `text` (identifiers, numbers, punctuators) with offsets; comments and strings skipped. */
export function tokenize(text) {
  const tokens = []
  let i = 0
  while (i < text.length) {
    const ch = text[i]
    if (ch === '\n') {
      tokens.push({ kind: 'nl', value: '\n', at: i })
      i++
    } else if (/\s/.test(ch)) i++
    else if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i)
      i = end === -1 ? text.length : end
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2)
      i = end === -1 ? text.length : end + 2
    } else if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1
      while (j < text.length && text[j] !== ch) j += text[j] === '\\' ? 2 : 1
      i = j + 1
    } else if (/[A-Za-z_$]/.test(ch)) {
      const m = /^[A-Za-z_$][\w$]*/.exec(text.slice(i, i + 200))
      tokens.push({ kind: 'id', value: m[0], at: i })
      i += m[0].length
    } else if (/[0-9]/.test(ch)) {
      const m = /^(0[xX][0-9a-fA-F_]+|[0-9][0-9_]*(\.[0-9]+)?([eE][+-]?[0-9]+)?)/.exec(
        text.slice(i, i + 200),
      )
      tokens.push({ kind: 'num', value: m[0], at: i })
      i += m[0].length
    } else {
      const p = PUNCTUATORS.find((q) => text.startsWith(q, i)) ?? ch
      tokens.push({ kind: 'punct', value: p, at: i })
      i += p.length
    }
  }
  // Pair the angle brackets of casts and type arguments (`<u32>x`, `load<u8>(…)`).
  for (let k = 0; k + 2 < tokens.length; k++) {
    const [a, b, c] = [tokens[k], tokens[k + 1], tokens[k + 2]]
    if (a.value === '<' && b.kind === 'id' && TYPES.has(b.value) && c.value === '>') {
      a.type = true
      c.type = true
    }
  }
  return tokens
}

/** The index of the token closing the bracket opened at `k`. */
function closing(tokens, k) {
  const open = tokens[k].value
  const close = open === '(' ? ')' : open === '{' ? '}' : ']'
  let depth = 0
  for (let j = k; j < tokens.length; j++) {
    if (tokens[j].value === open) depth++
    else if (tokens[j].value === close && --depth === 0) return j
  }
  throw new Error(`unbalanced ${open} at ${tokens[k].at}`)
}

/** The index of the last token of the statement starting at `k` (ends at a newline or `}` at depth 0). */
function statementEnd(tokens, k) {
  let depth = 0
  for (let j = k; j < tokens.length; j++) {
    const v = tokens[j].value
    if (v === '(' || v === '[' || v === '{') depth++
    else if (v === ')' || v === ']' || v === '}') {
      if (depth === 0) return j - 1
      depth--
    } else if ((v === '\n' || v === ';') && depth === 0) return j - 1
  }
  return tokens.length - 1
}

function lineCol(text, at) {
  const before = text.slice(0, at)
  const line = before.split('\n').length
  return { line, column: at - before.lastIndexOf('\n') }
}

const SWAPS = {
  '<': ['ROR', '<='],
  '<=': ['ROR', '<'],
  '>': ['ROR', '>='],
  '>=': ['ROR', '>'],
  '===': ['EQ', '!=='],
  '!==': ['EQ', '==='],
  '==': ['EQ', '!='],
  '!=': ['EQ', '=='],
  '&&': ['LOG', '||'],
  '||': ['LOG', '&&'],
}

/** A top-level `const NAME[: type] = <literal>` line: an interface constant, not mutated. */
function namedConstantLine(text, at) {
  const start = text.lastIndexOf('\n', at) + 1
  const end = text.indexOf('\n', at)
  const line = text.slice(start, end === -1 ? text.length : end)
  return /^(export )?const [A-Z][A-Z0-9_]*(: *\w+)? = *(0[xX][0-9a-fA-F]+|\d+)$/.test(line)
}

function bump(literal, delta) {
  const hex = /^0[xX]/.test(literal)
  const value = hex
    ? Number.parseInt(literal.slice(2).replaceAll('_', ''), 16)
    : Number(literal.replaceAll('_', ''))
  const next = value + delta
  return hex ? `0x${next.toString(16)}` : String(next)
}

/**
 * Every mutant of `text` (the source of `file`), in site order: `{ id, file, line, column,
 * operator, original, replacement, from, to }`, where `from`/`to` are the offsets replaced.
 */
export function mutantsOf(file, text) {
  const tokens = tokenize(text)
  const out = []
  const add = (operator, from, to, replacement) => {
    const { line, column } = lineCol(text, from)
    const n = out.filter(
      (m) => m.line === line && m.column === column && m.operator === operator,
    ).length
    out.push({
      id: `${file}:${line}:${column}:${operator}:${n}`,
      file,
      line,
      column,
      operator,
      original: text.slice(from, to),
      replacement,
      from,
      to,
    })
  }
  const endOf = (t) => t.at + t.value.length
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]
    if (t.kind === 'punct' && !t.type && SWAPS[t.value]) {
      const [op, to] = SWAPS[t.value]
      add(op, t.at, endOf(t), to)
    } else if (
      t.kind === 'num' &&
      !/[.eE]/.test(t.value.replace(/^0[xX].*/, '')) &&
      !namedConstantLine(text, t.at)
    ) {
      add('LIT', t.at, endOf(t), bump(t.value, 1))
      if (bump(t.value, 0) !== '0') add('LIT', t.at, endOf(t), bump(t.value, -1))
    } else if (t.value === '!' && t.kind === 'punct') {
      add('NOT', t.at, endOf(t), '')
    } else if (t.kind === 'id' && t.value === 'return') {
      const next = tokens[k + 1]
      const refusal =
        next !== undefined &&
        ((next.value === 'fail' && tokens[k + 2]?.value === '(') ||
          /^E_/.test(next.value) ||
          (next.value === '-' && tokens[k + 2]?.value === '1'))
      if (refusal) add('RET', t.at, endOf(tokens[statementEnd(tokens, k)]), '{}')
    } else if (t.kind === 'id' && (t.value === 'break' || t.value === 'continue')) {
      add('BRK', t.at, endOf(t), '{}')
    } else if (t.kind === 'id' && (t.value === 'if' || t.value === 'while')) {
      const open = k + 1
      if (tokens[open]?.value !== '(') continue
      const close = closing(tokens, open)
      const from = endOf(tokens[open])
      add('COND', from, tokens[close].at, 'true')
      add('COND', from, tokens[close].at, 'false')
    }
  }
  return out
}

/** `text` with mutant `m` applied. */
export function applyMutant(text, m) {
  return text.slice(0, m.from) + m.replacement + text.slice(m.to)
}

/** A seeded uniform permutation of `0..n-1` (mulberry32, Fisher–Yates). */
export function permutation(n, seed) {
  let s = seed >>> 0
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const order = Array.from({ length: n }, (_, k) => k)
  for (let k = n - 1; k > 0; k--) {
    const j = Math.floor(random() * (k + 1))
    ;[order[k], order[j]] = [order[j], order[k]]
  }
  return order
}

/** The 95% Wilson score interval of `k` successes in `n` trials, as fractions. */
export function wilson(k, n) {
  if (n === 0) return [0, 1]
  const z = 1.959963984540054
  const p = k / n
  const centre = p + (z * z) / (2 * n)
  const half = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))
  const d = 1 + (z * z) / n
  return [(centre - half) / d, (centre + half) / d]
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex')

function parseArgs(argv) {
  const out = {
    sample: undefined,
    seed: 1,
    minutes: Number.POSITIVE_INFINITY,
    files: DEFAULT_FILES,
    tests: undefined,
    ids: undefined,
    retry: new Set(),
    list: false,
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--sample') out.sample = Number(argv[++i])
    else if (a === '--seed') out.seed = Number(argv[++i])
    else if (a === '--minutes') out.minutes = Number(argv[++i])
    else if (a === '--tests') out.tests = (argv[++i] ?? '').split(',').filter(Boolean)
    else if (a === '--files') out.files = (argv[++i] ?? '').split(',').filter(Boolean)
    else if (a === '--ids') out.ids = (argv[++i] ?? '').split(',').filter(Boolean)
    else if (a === '--retry') out.retry = new Set(['Survived', 'Timeout'])
    else if (a === '--retry-timeouts') out.retry = new Set(['Timeout'])
    else if (a === '--list') out.list = true
    else if (a !== '--') throw new Error(`unknown argument ${a}`)
  }
  if (out.sample !== undefined && !(Number.isInteger(out.sample) && out.sample > 0))
    throw new TypeError('--sample takes an integer > 0')
  if (!Number.isInteger(out.seed)) throw new TypeError('--seed takes an integer')
  if (!(out.minutes > 0)) throw new TypeError('--minutes takes a number > 0')
  if (out.files.length === 0 || out.files.some((f) => !FILES.includes(f)))
    throw new TypeError(`--files takes some of ${FILES.join(',')}`)
  return out
}

/** Rebuilds the copy's src/wasm-bytes.ts; the module text, or null when the compiler refuses. */
function build(copy) {
  const child = spawnSync(process.execPath, ['scripts/build-wasm.mjs'], {
    cwd: copy,
    encoding: 'utf8',
    timeout: 5 * 60_000,
    killSignal: 'SIGKILL',
  })
  if (child.status !== 0) return { ok: false, message: (child.stderr || child.stdout || '').trim() }
  return { ok: true, text: readFileSync(join(copy, 'src', 'wasm-bytes.ts'), 'utf8') }
}

const CONFIG = 'assembly-mutants.vitest.config.mjs'

/**
 * Writes the copy's vitest config: the package's Stryker config, fast-check without shrinking,
 * and no wall-clock test time-out.
 */
function writeConfig(copy) {
  writeFileSync(
    join(copy, 'assembly-mutants.setup.mjs'),
    "import fc from 'fast-check'\n\n// A failure is a failure: no time spent shrinking it.\nfc.configureGlobal({ endOnFailure: true })\n",
  )
  writeFileSync(
    join(copy, CONFIG),
    [
      "import { mergeConfig } from 'vitest/config'",
      "import base from './stryker.vitest.config.mjs'",
      '',
      '// No per-test time-out: on a starved machine a sound test can pass 30 s of wall clock;',
      '// the job times a hung run out on CPU seconds instead.',
      'export default mergeConfig(base, {',
      "  test: { setupFiles: ['./assembly-mutants.setup.mjs'], testTimeout: 3_600_000, hookTimeout: 3_600_000 },",
      '})',
      '',
    ].join('\n'),
  )
}

/**
 * CPU seconds used so far by the processes of group `pgid` (user + system, with their reaped
 * children's), from /proc: a hung mutant spins, a starved run on a loaded machine does not, so
 * the time-out is counted in CPU, not wall-clock, time.
 */
function groupCpuSeconds(pgid) {
  let ticks = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue
    }
    // Fields after the command (in parentheses): state ppid pgrp … utime(14) stime cutime cstime.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(f[2]) !== pgid) continue
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])
  }
  return ticks / 100
}

/**
 * Runs `tests` in the copy; 'passed' (with the count and the CPU seconds), 'timeout' or
 * 'failed' with the first failing test. The run is its own process group, killed whole when it
 * has used `cpuLimit` CPU seconds (or after `wallLimitMs`): a mutant that loops forever does so
 * in a vitest worker, which would outlive its parent.
 */
async function runTests(copy, tests, cpuLimit, wallLimitMs) {
  const out = join(copy, '.assembly-mutants-report.json')
  rmSync(out, { force: true })
  const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')
  const args = ['run', '--config', CONFIG, '--bail', '1', '--reporter', 'json', '--outputFile', out]
  const child = spawn(process.execPath, [vitest, ...args, ...tests], {
    cwd: copy,
    detached: true,
    stdio: 'ignore',
  })
  let timedOut = false
  let cpu = 0
  const kill = () => {
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {}
  }
  const started = Date.now()
  const watch = setInterval(() => {
    cpu = Math.max(cpu, groupCpuSeconds(child.pid))
    if (cpu > cpuLimit || Date.now() - started > wallLimitMs) {
      timedOut = true
      kill()
    }
  }, 1000)
  const status = await new Promise((resolve) => child.on('exit', (code) => resolve(code)))
  clearInterval(watch)
  // Whatever the group left behind (a worker still spinning) goes too.
  kill()
  if (timedOut) return { outcome: 'timeout' }
  if (!existsSync(out)) return { outcome: 'failed', test: `(no report; exit ${status})` }
  const report = JSON.parse(readFileSync(out, 'utf8'))
  const failed = []
  for (const file of report.testResults ?? []) {
    const rel = file.name.slice(copy.length + 1)
    for (const t of file.assertionResults ?? [])
      if (t.status === 'failed') failed.push(`${rel} › ${t.title}`)
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0)
      failed.push(`${rel} (the file failed: ${(file.message ?? '').split('\n')[0].slice(0, 120)})`)
  }
  if (status === 0 && failed.length === 0)
    return { outcome: 'passed', tests: report.numPassedTests ?? 0, cpu }
  return { outcome: 'failed', test: failed[0] ?? `(exit ${status})` }
}

function readReport() {
  if (!existsSync(REPORT)) return { verdicts: {} }
  return JSON.parse(readFileSync(REPORT, 'utf8'))
}

/** The counts and score over `rows` (verdict records). */
export function summarize(rows) {
  const count = (s) => rows.filter((r) => r.status === s).length
  const killed = count('Killed') + count('Timeout')
  const survived = count('Survived')
  const [lo, hi] = wilson(killed, killed + survived)
  return {
    run: rows.length,
    killed,
    timeouts: count('Timeout'),
    survived,
    compileErrors: count('CompileError'),
    equivalent: count('Equivalent'),
    score: killed + survived === 0 ? null : killed / (killed + survived),
    interval95: [lo, hi],
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2))
  const sources = Object.fromEntries(
    FILES.map((f) => [f, readFileSync(join(PACKAGE_DIR, f), 'utf8')]),
  )
  const all = args.files.flatMap((f) => mutantsOf(f, sources[f]))
  const testsOf = (file) => args.tests ?? TESTS_BY_FILE[file]
  if (args.list) {
    for (const m of all)
      console.log(`${m.id}\t${JSON.stringify(m.original)} → ${JSON.stringify(m.replacement)}`)
    console.log(`${all.length} mutants`)
    return
  }
  const order = permutation(all.length, args.seed)
  let chosen = order.slice(0, args.sample ?? all.length).map((k) => all[k])
  if (args.ids) chosen = all.filter((m) => args.ids.includes(m.id))
  const hashes = Object.fromEntries(FILES.map((f) => [f, sha256(sources[f])]))
  const report = readReport()
  const verdicts = report.verdicts ?? {}
  const current = (m) => {
    const v = verdicts[m.id]
    return v !== undefined && v.sourceHash === hashes[m.file] ? v : undefined
  }
  const todo = chosen.filter((m) => {
    const v = current(m)
    // Mutants named by --ids run again whatever their verdict.
    return v === undefined || args.ids !== undefined || args.retry.has(v.status)
  })
  const commit = spawnSync('git', ['rev-parse', 'HEAD'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).stdout.trim()
  const save = () => {
    mkdirSync(join(REPORT, '..'), { recursive: true })
    // Another run (an --ids check beside the main run) may have saved since: keep the newer
    // verdict of each mutant, then replace the file in one rename.
    for (const [id, v] of Object.entries(readReport().verdicts ?? {}))
      if (verdicts[id] === undefined || verdicts[id].date < v.date) verdicts[id] = v
    const rows = chosen.map((m) => current(m)).filter(Boolean)
    const temporary = `${REPORT}.${process.pid}`
    writeFileSync(
      temporary,
      `${JSON.stringify(
        {
          package: '@tollgate/lexical-preflight',
          files: args.files,
          sourceHashes: hashes,
          commit,
          seed: args.seed,
          generated: all.length,
          sampled: chosen.length,
          tests: Object.fromEntries(args.files.map((f) => [f, testsOf(f)])),
          summary: summarize(rows),
          verdicts,
        },
        null,
        2,
      )}\n`,
    )
    renameSync(temporary, REPORT)
  }
  console.log(
    `assembly-mutants: ${all.length} mutants generated, ${chosen.length} sampled (seed ${args.seed}), ${todo.length} to run`,
  )
  if (todo.length > 0) {
    const copy = copyPackage(PACKAGE_DIR)
    try {
      writeConfig(copy)
      const started = Date.now()
      const clean = build(copy)
      if (!clean.ok) throw new Error(`the unmutated copy does not compile: ${clean.message}`)
      const committed = readFileSync(join(PACKAGE_DIR, 'src', 'wasm-bytes.ts'), 'utf8')
      if (clean.text !== committed)
        throw new Error('the unmutated build differs from the committed src/wasm-bytes.ts')
      // Each test set the mutants to run use passes on the unmutated copy first; its CPU time
      // sets the time-out of the mutants it judges.
      const limits = new Map()
      for (const tests of new Set(todo.map((m) => testsOf(m.file)))) {
        const t0 = Date.now()
        const baseline = await runTests(copy, tests, Number.POSITIVE_INFINITY, 30 * 60_000)
        if (baseline.outcome !== 'passed')
          throw new Error(`the unmutated copy fails (${baseline.test ?? baseline.outcome})`)
        const baseMs = Date.now() - t0
        // Three times the clean run plus a minute, as Stryker's own Timeout, in CPU seconds (the
        // wall-clock cap is only a backstop: a starved run is slow, not hung).
        const cpuLimit = baseline.cpu * 3 + 60
        limits.set(tests, { cpuLimit, wallLimitMs: Math.max(baseMs * 10, 20 * 60_000) })
        console.log(
          `assembly-mutants: clean run of ${tests.join(',')} passed in ${(baseMs / 1000).toFixed(0)} s, ${baseline.cpu.toFixed(0)} CPU s (${baseline.tests} tests); time-out ${cpuLimit.toFixed(0)} CPU s`,
        )
      }
      // Verdicts by the hash of the module a mutant compiles to: the same module, the same verdict.
      const cleanHash = sha256(clean.text)
      const byModule = new Map()
      for (const v of Object.values(verdicts))
        if (v.moduleHash && v.status !== 'CompileError' && !byModule.has(v.moduleHash))
          byModule.set(v.moduleHash, {
            status: v.status,
            test: v.test,
            note: `the module of ${v.id}`,
          })
      let done = 0
      for (const m of todo) {
        if ((Date.now() - started) / 60_000 > args.minutes) {
          console.log(
            `assembly-mutants: --minutes ${args.minutes} reached; ${todo.length - done} not run`,
          )
          break
        }
        const t0 = Date.now()
        const target = join(copy, m.file)
        let verdict
        try {
          writeFileSync(target, applyMutant(sources[m.file], m))
          const built = build(copy)
          if (!built.ok)
            verdict = {
              status: 'CompileError',
              note: built.message
                .split('\n')
                .find((l) => /ERROR|error/.test(l))
                ?.trim()
                .slice(0, 160),
            }
          else {
            const moduleHash = sha256(built.text)
            const known = byModule.get(moduleHash)
            if (moduleHash === cleanHash)
              verdict = {
                status: 'Equivalent',
                note: 'compiles to the unmutated module, byte for byte',
                moduleHash,
              }
            else if (known !== undefined && args.ids === undefined && !args.retry.has(known.status))
              verdict = { ...known, moduleHash, shared: true }
            else {
              const tests = testsOf(m.file)
              const { cpuLimit, wallLimitMs } = limits.get(tests)
              const r = await runTests(copy, tests, cpuLimit, wallLimitMs)
              verdict = {
                status:
                  r.outcome === 'failed'
                    ? 'Killed'
                    : r.outcome === 'timeout'
                      ? 'Timeout'
                      : 'Survived',
                ...(r.test ? { test: r.test } : {}),
                moduleHash,
              }
              byModule.set(moduleHash, {
                status: verdict.status,
                test: verdict.test,
                note: `the module of ${m.id}`,
              })
            }
          }
        } finally {
          writeFileSync(target, sources[m.file])
        }
        const { from: _f, to: _t, ...where } = m
        verdicts[m.id] = {
          ...where,
          sourceHash: hashes[m.file],
          ...verdict,
          tests: testsOf(m.file),
          seconds: Math.round((Date.now() - t0) / 1000),
          date: new Date().toISOString(),
        }
        save()
        done++
        const v = verdicts[m.id]
        console.log(
          `assembly-mutants: ${done}/${todo.length} ${m.id} ${JSON.stringify(m.original)}→${JSON.stringify(m.replacement)} ${v.status}${v.test ? ` (${v.test})` : ''}${v.shared ? ' [same module]' : ''} ${v.seconds} s`,
        )
      }
    } finally {
      removeCopy(copy)
    }
  }
  save()
  const rows = chosen.map((m) => current(m)).filter(Boolean)
  const s = summarize(rows)
  const pct = (x) => `${(100 * x).toFixed(1)}%`
  console.log(
    `assembly-mutants: generated ${all.length}, sampled ${chosen.length}, judged ${s.run}: killed ${s.killed} (${s.timeouts} time-outs), survived ${s.survived}, compile errors ${s.compileErrors}, equivalent (same module) ${s.equivalent}`,
  )
  if (s.score !== null)
    console.log(
      `assembly-mutants: score ${pct(s.score)}${chosen.length < all.length || s.run < all.length ? ` (95% Wilson interval ${pct(s.interval95[0])}–${pct(s.interval95[1])})` : ''}`,
    )
  for (const r of rows.filter((x) => x.status === 'Survived'))
    console.log(
      `assembly-mutants: survived ${r.id} ${JSON.stringify(r.original)} → ${JSON.stringify(r.replacement)}`,
    )
  console.log(`assembly-mutants: report ${REPORT}`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`assembly-mutants: ${error.message}`)
    process.exit(2)
  })
}
