// The adoption job's machinery: read a README's fenced code, install what its install line
// names into an empty project (offline), run the snippet as printed, talk to it over HTTP or
// stdio on 127.0.0.1. The walks themselves are in walks.mjs.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('../..', import.meta.url))

/** Stops a walk at its first failure; the message is the walk's one-line cause. */
export class WalkFailure extends Error {}
export function expect(ok, what) {
  if (!ok) throw new WalkFailure(what)
}

/** Every fenced block of a markdown text, in order: { lang, code, heading } (heading: the last `#` line above it). */
export function fences(markdown) {
  const out = []
  let heading = ''
  let open = null
  for (const line of markdown.split('\n')) {
    if (open === null && /^#{1,6} /.test(line)) heading = line.trim()
    const fence = /^```(\S*)\s*$/.exec(line)
    if (fence && open === null) open = { lang: fence[1], lines: [], heading }
    else if (line.startsWith('```') && open !== null) {
      out.push({ lang: open.lang, code: `${open.lines.join('\n')}\n`, heading: open.heading })
      open = null
    } else if (open !== null) open.lines.push(line)
  }
  return out
}

/**
 * The README's snippet for a walk: the first `ts`/`js` fence that contains `marker` (and sits
 * under a heading containing `heading`, when given). A fence whose first line is
 * `// fragment:` is a documented fragment, never a runnable quick start, and is skipped.
 */
export function snippet(readme, { marker, heading }) {
  const found = fences(readFileSync(join(root, readme), 'utf8')).find(
    (f) =>
      ['ts', 'js', 'mjs', 'typescript', 'javascript'].includes(f.lang) &&
      !f.code.startsWith('// fragment:') &&
      f.code.includes(marker) &&
      (heading === undefined || f.heading.includes(heading)),
  )
  return found ?? null
}

/**
 * The packages the README's install says to install: every `npm install` line of the `sh`
 * fences that name `pkg` (an install block: `redis` or `pino` lines beside the package's own),
 * or an inline `npm install` naming it; with `words`, only lines holding every one of them (a
 * comment such as `# SDK 1.32` picks one of two).
 */
export function installNames(readme, pkg, words = []) {
  const text = readFileSync(join(root, readme), 'utf8')
  const lines = []
  for (const f of fences(text)) {
    const block = f.code.split('\n')
    if (f.lang === 'sh' && block.some((l) => l.startsWith('npm install') && l.includes(pkg))) {
      lines.push(...block)
    }
  }
  for (const m of text.matchAll(/`(npm install [^`]+)`/g)) if (m[1].includes(pkg)) lines.push(m[1])
  const names = []
  for (const line of lines) {
    const m = /^npm install ([^#]+)/.exec(line.trim())
    if (!m || !words.every((w) => line.includes(w))) continue
    for (const word of m[1].trim().split(/\s+/)) if (!word.startsWith('-')) names.push(word)
  }
  return [...new Set(names)]
}

/** name → version of every third-party package the workspace pins exactly (what the store holds). */
export function workspacePins() {
  const pins = new Map()
  for (const group of ['.', 'packages', 'apps', 'tools']) {
    for (const dir of group === '.' ? ['.'] : readdirSync(join(root, group))) {
      let manifest
      try {
        manifest = JSON.parse(readFileSync(join(root, group, dir, 'package.json'), 'utf8'))
      } catch {
        continue
      }
      for (const deps of [manifest.dependencies, manifest.devDependencies]) {
        for (const [name, range] of Object.entries(deps ?? {})) {
          if (/^\d+\.\d+\.\d+$/.test(range) && !pins.has(name)) pins.set(name, range)
        }
      }
    }
  }
  return pins
}

/**
 * Installs into `dir` with no network: first npm's own offline mode (`npm install --offline`,
 * from npm's cache: the README's command as written), and where that cache lacks a package
 * (ENOTCACHED), pnpm's offline mode from the pnpm store the workspace was installed from, with
 * an override mapping each tollgate name to its tarball (pnpm, unlike npm, does not resolve a
 * tarball's `@tollgate/x@0.0.0` to the tarball installed beside it). Returns which one did.
 */
export function installOffline(dir, tarballs, specs) {
  const npm = spawnSync(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', ...tarballs.values(), ...specs],
    { cwd: dir, encoding: 'utf8' },
  )
  if (npm.status === 0) return 'npm --offline'
  if (!/ENOTCACHED/.test(npm.stderr)) {
    throw new WalkFailure(`npm install failed: ${firstError(npm.stderr)}`)
  }
  const overrides = [...tarballs].map(([name, file]) => `  "${name}": "file:${file}"`)
  writeFileSync(join(dir, 'pnpm-workspace.yaml'), `overrides:\n${overrides.join('\n')}\n`)
  const pnpm = spawnSync(
    'npx',
    ['-y', 'pnpm@12.4.2', 'add', '--offline', ...tarballs.values(), ...specs],
    { cwd: dir, encoding: 'utf8' },
  )
  if (pnpm.status !== 0) {
    throw new WalkFailure(`pnpm add --offline failed: ${firstError(pnpm.stdout + pnpm.stderr)}`)
  }
  return 'pnpm --offline'
}

function firstError(text) {
  const line = text.split('\n').find((l) => /err|error|fail/i.test(l)) ?? text.split('\n')[0]
  return line.trim().slice(0, 160)
}

/** A free port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

/** Starts `file` in `dir` with the Node that runs the walks; output is collected. */
export function startChild(node, dir, file, env = {}, args = []) {
  const child = spawn(node, [...args, file], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  child.out = ''
  child.err = ''
  child.stdout.setEncoding('utf8').on('data', (d) => {
    child.out += d
  })
  child.stderr.setEncoding('utf8').on('data', (d) => {
    child.err += d
  })
  child.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)))
  return child
}

/** Runs `file` to its end (at most `ms`), returning { code, out, err }. */
export async function runToEnd(node, dir, file, ms = 60_000, env = {}) {
  const child = startChild(node, dir, file, env)
  const timer = setTimeout(() => child.kill('SIGKILL'), ms)
  const code = await child.exited
  clearTimeout(timer)
  return { code, out: child.out, err: child.err }
}

/** Waits until `port` accepts a request (any status), or the child exits, or `ms` pass. */
export async function waitForHttp(child, port, ms = 60_000) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new WalkFailure(`server exited (${child.exitCode}): ${lastLine(child.err)}`)
    }
    try {
      await send(port, 'GET', '/', undefined, {})
      return
    } catch {
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  throw new WalkFailure(`server never listened on ${port}: ${lastLine(child.err)}`)
}

export function lastLine(text) {
  const lines = text.trim().split('\n').filter(Boolean)
  const err = lines.find((l) => /Error|error:/.test(l))
  return (err ?? lines.at(-1) ?? '(no output)').trim().slice(0, 200)
}

/** One HTTP request to 127.0.0.1; resolves { status, headers, text, json }. */
export function send(port, method, path, body, headers = { 'content-type': 'application/json' }) {
  return new Promise((resolve, reject) => {
    const bytes = body === undefined ? undefined : Buffer.from(body)
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: bytes ? { ...headers, 'content-length': bytes.length } : headers,
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8').on('data', (d) => {
          text += d
        })
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, text, json: parse(text) }),
        )
        res.on('error', reject)
      },
    )
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')))
    req.on('error', reject)
    req.end(bytes)
  })
}

/** JSON, or the JSON of the last `data:` line of an event stream, or undefined. */
export function parse(text) {
  try {
    return JSON.parse(text)
  } catch {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
    if (data.length === 0) return undefined
    try {
      return JSON.parse(data.at(-1))
    } catch {
      return undefined
    }
  }
}

/** A raw JSON-RPC client over a child's stdio: `write(line)`, `next(id)` waits for that id's answer. */
export function stdioPeer(child) {
  const answers = []
  let buffer = ''
  child.stdout.on('data', (d) => {
    buffer += d
    let nl = buffer.indexOf('\n')
    while (nl >= 0) {
      const line = buffer.slice(0, nl)
      buffer = buffer.slice(nl + 1)
      try {
        answers.push(JSON.parse(line))
      } catch {}
      nl = buffer.indexOf('\n')
    }
  })
  return {
    write: (line) => child.stdin.write(`${line}\n`),
    async next(id, ms = 30_000) {
      const deadline = Date.now() + ms
      while (Date.now() < deadline) {
        const i = answers.findIndex((a) => a.id === id && ('result' in a || 'error' in a))
        if (i >= 0) return answers.splice(i, 1)[0]
        if (child.exitCode !== null) throw new WalkFailure(`child exited: ${lastLine(child.err)}`)
        await new Promise((r) => setTimeout(r, 50))
      }
      throw new WalkFailure(`no answer to id ${JSON.stringify(id)} within ${ms / 1000} s`)
    },
  }
}

/** The commit the walks ran at (short), and whether the tree had changes. */
export function commit() {
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: root,
    encoding: 'utf8',
  })
  const dirty = execFileSync('git', ['status', '--porcelain', '--', 'packages'], {
    cwd: root,
    encoding: 'utf8',
  })
  return `${head.trim()}${dirty.trim() ? ' (with uncommitted package changes)' : ''}`
}

/**
 * Typechecks a TypeScript snippet in the walk's project as a strict project would
 * (`strict`, `exactOptionalPropertyTypes`, `module`/`moduleResolution` `nodenext`), with the
 * workspace's own TypeScript and Node types (the project's packages, and the `@types/…` its
 * install line names, resolve from its node_modules). Returns the first error, or null.
 */
export function typecheck(dir, file, exactOptionalPropertyTypes = true) {
  const tsconfig = {
    compilerOptions: {
      strict: true,
      exactOptionalPropertyTypes,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types'), join(dir, 'node_modules/@types')],
    },
    files: [file],
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig))
  const tsc = spawnSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  )
  if (tsc.status === 0) return null
  return (tsc.stdout.split('\n').find((l) => l.includes('error TS')) ?? tsc.stdout)
    .trim()
    .slice(0, 200)
}

/**
 * Links packages into the walk's project from the workspace's own installed copies
 * (node_modules/.pnpm, at the pinned version, with what they depend on beside them), unless the
 * project already has one. Used for `@types/…` packages (installing them would resolve
 * `@types/node: *` to a release neither offline cache holds) and in the declaration walk.
 */
export function linkTypes(dir, specs) {
  const store = join(root, 'node_modules/.pnpm')
  for (const spec of specs) {
    const name = spec.replace(/@[^@]+$/, '')
    const version = spec.slice(name.length + 1)
    // pnpm names an entry `<name>@<version>`, with `_<peer>@<version>…` when peers resolved.
    const entry = `${name.replace('/', '+')}@${version}`
    const found = readdirSync(store).find((e) => e === entry || e.startsWith(`${entry}_`))
    if (found === undefined)
      throw new WalkFailure(`${spec} is not in the workspace's node_modules/.pnpm`)
    const target = realpathSync(join(store, found, 'node_modules', name))
    const link = join(dir, 'node_modules', name)
    if (existsSync(link)) continue
    mkdirSync(join(link, '..'), { recursive: true })
    symlinkSync(target, link, 'dir')
  }
}
