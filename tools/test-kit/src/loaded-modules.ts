// What importing a module specifier loads, seen from a fresh child process: a `module.register`
// resolve hook (Node 20.6+) appends every resolved URL to a file, and the child imports the
// specifier through Node's own resolution (the package's `exports`, so the built `dist`). The
// caller names the folder to resolve from (its package), since the kit itself depends on none.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// The hook runs on the loader thread; appending to a file is the simplest channel back.
const HOOKS = `
import { appendFileSync } from 'node:fs'
let log
export async function initialize(data) { log = data.log }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  appendFileSync(log, result.url + '\\n')
  return result
}`

/** Every URL Node resolved while importing `specifier` (ESM) in a new process run from `cwd`. */
export function resolvedUrlsOf(specifier: string, cwd: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-loaded-'))
  const log = join(dir, 'resolved.txt')
  try {
    const hooks = `data:text/javascript,${encodeURIComponent(HOOKS)}`
    const script = `import { register } from 'node:module'
register(${JSON.stringify(hooks)}, { data: { log: ${JSON.stringify(log)} } })
await import(${JSON.stringify(specifier)})`
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd, stdio: 'pipe' })
    return readFileSync(log, 'utf8').split('\n').filter(Boolean)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Every module file `require(specifier)` loaded (CJS), in a new process run from `cwd`. */
export function requiredFilesOf(specifier: string, cwd: string): string[] {
  const script = `require(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(require.cache)))`
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd, encoding: 'utf8' }))
}
