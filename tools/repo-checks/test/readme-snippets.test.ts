// Every ```ts / ```js block of a package README is either a complete program, run here against
// the built packages, or marked `// fragment:` on its first line (the convention in
// docs/evidence.md). A program is transpiled (TypeScript's transpileModule: Node 20 has no type
// stripping) to an .mjs file inside its package, where `@tollgate/*` and the package's own
// dependencies resolve, and run with `node`: it must exit 0, or start listening (a probe reports
// the first `listening` of any server; the program is then killed) before a generous deadline.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { extractSnippets } from '../src/readme-snippets.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const PACKAGES = readdirSync(join(ROOT, 'packages')).filter((name) =>
  existsSync(join(ROOT, 'packages', name, 'README.md')),
)
const DEADLINE_MS = 20_000
const LISTENING = '@@tollgate-readme-snippet-listening@@'

const PROBE = `import net from 'node:net'
const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => process.stderr.write('\\n${LISTENING}\\n'))
  return listen.apply(this, args)
}
`

interface Outcome {
  readonly how: 'exited' | 'listening' | 'deadline'
  readonly code: number | null
  readonly stderr: string
}

function run(file: string, probe: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', pathToFileURL(probe).href, file],
      { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] },
    )
    let stderr = ''
    let settled = false
    const settle = (how: Outcome['how'], code: number | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (child.exitCode === null) child.kill('SIGKILL')
      resolve({ how, code, stderr: stderr.slice(-2000) })
    }
    const timer = setTimeout(() => settle('deadline', null), DEADLINE_MS)
    child.stderr!.setEncoding('utf8')
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk
      if (stderr.includes(LISTENING)) settle('listening', null)
    })
    child.once('exit', (code) => settle('exited', code))
  })
}

describe('package README usage blocks', () => {
  for (const name of PACKAGES) {
    it(`runs every complete program of packages/${name}/README.md, and it has one`, async () => {
      const readme = readFileSync(join(ROOT, 'packages', name, 'README.md'), 'utf8')
      const programs = extractSnippets(readme).filter((s) => !s.fragment)
      expect(programs.length, 'at least one usage block is a complete program').toBeGreaterThan(0)
      const dir = mkdtempSync(join(ROOT, 'packages', name, '.readme-snippets-'))
      try {
        const probe = join(dir, 'probe.mjs')
        writeFileSync(probe, PROBE)
        const failures: string[] = []
        for (const snippet of programs) {
          const js = ts.transpileModule(snippet.code, {
            compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
          }).outputText
          const file = join(dir, `line-${snippet.line}.mjs`)
          writeFileSync(file, js)
          const outcome = await run(file, probe)
          const ok = outcome.how === 'listening' || (outcome.how === 'exited' && outcome.code === 0)
          if (!ok) {
            failures.push(
              `README.md:${snippet.line} ${outcome.how} ${outcome.code}\n${outcome.stderr}`,
            )
          }
        }
        expect(failures).toEqual([])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }, 120_000)
  }
})

describe('the snippet runner', () => {
  it('fails a program that throws or exits non-zero, and passes one that exits 0 or listens', async () => {
    const dir = mkdtempSync(join(ROOT, 'packages', 'json-budget', '.readme-snippets-'))
    try {
      const probe = join(dir, 'probe.mjs')
      writeFileSync(probe, PROBE)
      const outcome = async (code: string) => {
        const file = join(dir, `p${Math.random().toString(36).slice(2)}.mjs`)
        writeFileSync(file, code)
        const o = await run(file, probe)
        return [o.how, o.code]
      }
      expect(await outcome('handler()')).toEqual(['exited', 1])
      expect(await outcome('process.exitCode = 3')).toEqual(['exited', 3])
      expect(await outcome("import '@tollgate/json-budget/nope'")).toEqual(['exited', 1])
      expect(
        await outcome("import { chargeJson } from '@tollgate/json-budget'\nchargeJson(1)"),
      ).toEqual(['exited', 0])
      const listen =
        "import { createServer } from 'node:http'\ncreateServer().listen(0, '127.0.0.1')"
      expect(await outcome(listen)).toEqual(['listening', null])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('extractSnippets', () => {
  it('reads ts and js blocks, marks a first-line `// fragment:` comment, and skips other languages', () => {
    const md = [
      '```ts',
      'console.log(1)',
      '```',
      '```sh',
      'npm install x',
      '```',
      '```js',
      '',
      '// fragment: needs `req` and `res`',
      'res.end()',
      '```',
      '````ts',
      '```',
      '````',
    ].join('\n')
    const snippets = extractSnippets(md)
    expect(snippets.map((s) => [s.line, s.lang, s.fragment])).toEqual([
      [1, 'ts', false],
      [7, 'js', true],
      [12, 'ts', false],
    ])
    expect(snippets[0]?.code).toBe('console.log(1)')
    expect(snippets[2]?.code).toBe('```')
  })
})
