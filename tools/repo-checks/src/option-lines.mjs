// node tools/repo-checks/src/option-lines.mjs [tree] [--files]
//
// Counts the lines of option code in each package of a tree (default: this checkout), so the
// cost of declaring options can be compared between two commits by one rule. Not part of the
// test run: it measures, it checks nothing.
//
// The rule, applied to every `packages/<package>/src/**/*.ts` file (generated files, whose first
// line says "Generated", left out). Lines are counted without blank lines.
//
// 1. An options file counts whole: its name is `options.ts`, `<thing>-options.ts`,
//    `resolve-options.ts`, `option-table.ts` or `option-validators.ts`.
// 2. In any other file, a top-level statement counts, with the comments before it, when it
//    declares a name that is option code:
//    - a type or interface of options or of resolved options (`…Options`, `Resolved…`,
//      `OptionValidators`, `ResolvedBrand`, `…Limits` types such as `PrincipalLimits`);
//    - a table of defaults, validators or options (`…_DEFAULTS`, `DEFAULT_…`, `…_VALIDATORS`,
//      `VALIDATORS`, `…_OPTIONS`, `OPTION_OF`, `…BRAND`);
//    - a resolver or a check of options (`resolve…Options`, `resolve…Limits`, `…Option`,
//      `checkOptions`, `knownOptions`, `requireResolved`, `isResolved…`, `createResolvedBrand`,
//      `orDefault`);
//    - or a constant built by the kernel or from another table (`defineOptions(…)`,
//      `createResolvedBrand(…)`, `<table>.with(…)`, `<table>.without(…)`).
//
// `--files` adds, per package, the files holding option code and their counts.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const ts = require('typescript')

const OPTIONS_FILE =
  /^(options|resolve-options|option-table|option-validators|[a-z0-9-]+-options)\.ts$/
const OPTION_NAME = [
  /Options$/,
  /^Resolved[A-Z]/,
  /^OptionValidators$/,
  /^[A-Z][A-Za-z]*Limits$/,
  /_DEFAULTS$/,
  /^DEFAULT_[A-Z_]+$/,
  /_VALIDATORS$/,
  /^VALIDATORS$/,
  /_OPTIONS$/,
  /^OPTION_OF$/,
  /BRAND$/,
  /^resolve[A-Za-z]*(Options|Limits)$/,
  /^[a-z][A-Za-z]*Option$/,
  /^(checkOptions|knownOptions|requireResolved|createResolvedBrand|orDefault)$/,
  /^isResolved[A-Z]/,
]
const KERNEL_CALL = /^(defineOptions|createResolvedBrand|[A-Za-z_.]+\.(with|without))$/

/** The names a top-level statement declares. */
function declaredNames(statement) {
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.map((d) => d.name.getText())
  }
  return statement.name === undefined ? [] : [statement.name.getText()]
}

/** True when a top-level `const` is built by the kernel or derived from another table. */
function builtByKernel(statement) {
  if (!ts.isVariableStatement(statement)) return false
  return statement.declarationList.declarations.some((d) => {
    let init = d.initializer
    while (init !== undefined && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init)))
      init = init.expression
    return (
      init !== undefined &&
      ts.isCallExpression(init) &&
      KERNEL_CALL.test(init.expression.getText().replace(/\s+/g, ''))
    )
  })
}

function isOptionStatement(statement) {
  if (builtByKernel(statement)) return true
  return declaredNames(statement).some((name) => OPTION_NAME.some((re) => re.test(name)))
}

function nonBlank(text) {
  return text.split('\n').filter((line) => line.trim() !== '').length
}

/** Non-blank lines of one file, and of those the option code's, by the rule above. */
export function countFile(path, text) {
  const total = nonBlank(text)
  if (/^\/\/.*\bGenerated\b/.test(text)) return { total: 0, option: 0, generated: true }
  if (OPTIONS_FILE.test(path.split('/').pop() ?? '')) return { total, option: total }
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  let option = 0
  for (const statement of source.statements) {
    if (!isOptionStatement(statement)) continue
    const comments = ts.getLeadingCommentRanges(text, statement.pos) ?? []
    const start = comments.length > 0 ? comments[0].pos : statement.getStart(source)
    option += nonBlank(text.slice(start, statement.end))
  }
  return { total, option }
}

function tsFiles(dir) {
  const out = []
  for (const name of readdirSync(dir)) {
    const full = join(dir, name)
    if (statSync(full).isDirectory()) out.push(...tsFiles(full))
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(full)
  }
  return out
}

/** Per package of `root`: non-blank source lines, option lines, and the files holding them. */
export function countTree(root) {
  const rows = []
  for (const pkg of readdirSync(join(root, 'packages')).sort()) {
    const src = join(root, 'packages', pkg, 'src')
    let files
    try {
      files = tsFiles(src)
    } catch {
      continue
    }
    const row = { pkg, total: 0, option: 0, files: [] }
    for (const file of files.sort()) {
      const counted = countFile(relative(src, file), readFileSync(file, 'utf8'))
      row.total += counted.total
      row.option += counted.option
      if (counted.option > 0) row.files.push({ file: relative(src, file), option: counted.option })
    }
    rows.push(row)
  }
  return rows
}

const percent = (part, whole) => (whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`)

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const root = resolve(args.find((a) => !a.startsWith('--')) ?? '.')
  const rows = countTree(root)
  console.log('| package | source lines | option lines | share |')
  console.log('| --- | ---: | ---: | ---: |')
  let total = 0
  let option = 0
  for (const row of rows) {
    total += row.total
    option += row.option
    console.log(`| ${row.pkg} | ${row.total} | ${row.option} | ${percent(row.option, row.total)} |`)
  }
  console.log(`| all | ${total} | ${option} | ${percent(option, total)} |`)
  if (args.includes('--files')) {
    for (const row of rows) {
      console.log(`\n${row.pkg}: ${row.files.map((f) => `${f.file} ${f.option}`).join(', ')}`)
    }
  }
}
