// The published declarations (each package's built dist) compiled as a user's project would
// compile them: fixtures under test/fixtures/declaration-types in a temporary project whose
// node_modules links the workspace packages and the SDKs, with `strict` and
// `exactOptionalPropertyTypes`, under each module resolution a project may use. Needs
// `pnpm build` first (the test task depends on it).
import { execFileSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const FIXTURES = fileURLToPath(new URL('./fixtures/declaration-types/', import.meta.url))
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')
const TRANSPORT = join(ROOT, 'packages/mcp-transport')

/** The workspace's @types/node, a dependency of its dev tooling, in pnpm's store. */
function nodeTypes(): string {
  const store = join(ROOT, 'node_modules/.pnpm')
  const entry = readdirSync(store)
    .filter((name) => name.startsWith('@types+node@'))
    .sort()
    .at(-1)
  if (entry === undefined) throw new Error('no @types/node in node_modules/.pnpm')
  return join(store, entry, 'node_modules/@types/node')
}

const LINKS: Record<string, string> = {
  '@tollgate/json-budget': join(ROOT, 'packages/json-budget'),
  '@tollgate/lexical-preflight': join(ROOT, 'packages/lexical-preflight'),
  '@tollgate/http-admission': join(ROOT, 'packages/http-admission'),
  '@tollgate/mcp-transport': TRANSPORT,
  '@tollgate/mcp-validation': join(ROOT, 'packages/mcp-validation'),
  '@modelcontextprotocol/sdk': join(TRANSPORT, 'node_modules/@modelcontextprotocol/sdk'),
  '@modelcontextprotocol/server': join(TRANSPORT, 'node_modules/@modelcontextprotocol/server'),
  '@types/node': nodeTypes(),
  zod: join(TRANSPORT, 'node_modules/zod'),
}

// One tsc run takes seconds, more on a loaded machine: a generous deadline, not a measure.
const DEADLINE = { timeout: 180_000 }

let project = ''

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'tollgate-types-'))
  for (const [name, target] of Object.entries(LINKS)) {
    const link = join(project, 'node_modules', name)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(realpathSync(target), link, 'dir')
  }
  cpSync(FIXTURES, project, { recursive: true })
})

afterAll(() => {
  if (project !== '') rmSync(project, { recursive: true, force: true })
})

/** Runs tsc on `files` with `flags`; returns its output ('' when it compiled cleanly). */
function compile(files: string[], flags: string[]): string {
  try {
    execFileSync(
      process.execPath,
      [
        TSC,
        '--noEmit',
        '--strict',
        '--exactOptionalPropertyTypes',
        '--types',
        'node',
        ...flags,
        ...files,
      ],
      { cwd: project, encoding: 'utf8' },
    )
    return ''
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error)
  }
}

const SETTINGS = [
  ['node16', ['--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022']],
  ['nodenext', ['--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022']],
  ['bundler', ['--module', 'esnext', '--moduleResolution', 'bundler', '--target', 'es2022']],
  // node10 reads no `exports`: subpaths resolve through `typesVersions`. zod's own CommonJS
  // declarations need esModuleInterop there.
  [
    'node10',
    [
      '--module',
      'commonjs',
      '--moduleResolution',
      'node10',
      '--target',
      'es2022',
      '--esModuleInterop',
    ],
  ],
] as const

describe('the published declarations', () => {
  it.each(SETTINGS)(
    'compile a project on SDK 1.32 under exactOptionalPropertyTypes and moduleResolution %s',
    DEADLINE,
    (_name, flags) => {
      expect(compile(['sdk1.ts'], [...flags])).toBe('')
    },
  )

  it.each(SETTINGS.filter(([name]) => name !== 'node10'))(
    'compile a project on SDK 2.x under exactOptionalPropertyTypes and moduleResolution %s',
    DEADLINE,
    (_name, flags) => {
      expect(compile(['sdk2.ts'], [...flags])).toBe('')
    },
  )
})
