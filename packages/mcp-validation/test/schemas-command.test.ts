// tollgate-schemas as a real child process (the command's source under tsx), on the tool
// definitions of test/fixtures/schema-tools.ts built with this run's SDK line (sdk1: 1.32,
// sdk2: 2.x). The written files are loaded by the offline registry and judged by it: the
// oracle for "closed" is Ajv refusing an unknown key, not a reading of the generator's code.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createSchemaRegistry, loadSchemaRegistry, toolInputSchema } from '../src/index.js'

const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url))
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url))
const TOOLS = fileURLToPath(new URL('./fixtures/schema-tools.ts', import.meta.url))
const NAMES = ['notes.import', 'notes.search', 'notes.tag', 'system.ping']

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-schemas-'))
  dirs.push(dir)
  return dir
}

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const child = spawnSync(
    process.execPath,
    ['--conditions=@tollgate/source', '--import', 'tsx', CLI, ...args],
    { cwd: PACKAGE_DIR, encoding: 'utf8', env: process.env },
  )
  return { status: child.status, stdout: child.stdout, stderr: child.stderr }
}

describe('tollgate-schemas', () => {
  it.each(['server', 'table', 'record'])(
    'writes one closed 2020-12 schema per tool from the %s export, which the registry loads and enforces',
    (form) => {
      const out = folder()
      expect(run('--module', TOOLS, '--export', form, '--out', out).status).toBe(0)
      const registry = loadSchemaRegistry(out)
      const expected = form === 'record' ? NAMES.filter((n) => n !== 'system.ping') : NAMES
      expect(registry.tools).toEqual(expected)
      expect(registry.validate('notes.search', { query: 'a', limit: 3 })).toBeNull()
      // Closed at the top and in a nested default object: the unknown key is refused.
      expect(registry.validate('notes.search', { query: 'a', extra: 1 })).toMatchObject({
        keyword: 'additionalProperties',
      })
      expect(
        registry.validate('notes.search', { query: 'a', filters: { tag: 't', x: 1 } }),
      ).toMatchObject({ keyword: 'additionalProperties', instancePath: '/filters' })
      expect(registry.validate('notes.search', { query: 'a', limit: 51 })).toMatchObject({
        keyword: 'maximum',
      })
      // A passthrough shape stays open.
      expect(registry.validate('notes.import', { source: 's', more: true })).toBeNull()
      if (form !== 'record') {
        expect(registry.validate('system.ping', {})).toBeNull()
        expect(registry.validate('system.ping', { x: 1 })).toMatchObject({
          keyword: 'additionalProperties',
        })
      }
    },
  )

  it('--check exits 0 when the folder agrees, and writes nothing', () => {
    const out = folder()
    run('--module', TOOLS, '--export', 'server', '--out', out)
    const before = readFileSync(join(out, 'notes.tag.schema.json'), 'utf8')
    const check = run('--module', TOOLS, '--export', 'table', '--out', out, '--check')
    expect(check.status).toBe(0)
    expect(readFileSync(join(out, 'notes.tag.schema.json'), 'utf8')).toBe(before)
  })

  it('--check exits 1 naming each tool whose file changed, is missing, or names no tool', () => {
    const out = folder()
    run('--module', TOOLS, '--export', 'server', '--out', out)
    const path = join(out, 'notes.search.schema.json')
    const loosened = JSON.parse(readFileSync(path, 'utf8'))
    delete loosened.additionalProperties
    writeFileSync(path, JSON.stringify(loosened))
    unlinkSync(join(out, 'notes.tag.schema.json'))
    writeFileSync(join(out, 'notes.old.schema.json'), '{}')
    const check = run('--module', TOOLS, '--export', 'server', '--out', out, '--check')
    expect(check.status).toBe(1)
    expect(check.stderr).toContain('changed: notes.search')
    expect(check.stderr).toContain('missing: notes.tag')
    expect(check.stderr).toContain('not defined: notes.old')
    expect(check.stderr).not.toContain('notes.import')
  })

  it('exits 2 on a usage error or an export that is not there', () => {
    expect(run('--out', folder()).status).toBe(2)
    expect(run('--module', TOOLS, '--export', 'nothing', '--out', folder()).status).toBe(2)
  })
})

describe('toolInputSchema', () => {
  it('control: without its closing, zod’s own input conversion admits an unknown key', () => {
    const shape = z.object({ query: z.string().max(10) })
    const open = { ...(shape.toJSONSchema({ io: 'input' }) as Record<string, unknown>) }
    const id = (name: string) => `urn:test:${name}.schema.json`
    const registry = createSchemaRegistry([
      { file: 'open.schema.json', source: 'open', schema: { ...open, $id: id('open') } },
      {
        file: 'closed.schema.json',
        source: 'closed',
        schema: toolInputSchema('closed', shape, { idBase: 'urn:test:' }),
      },
    ])
    expect(registry.validate('open', { query: 'a', extra: 1 })).toBeNull()
    expect(registry.validate('closed', { query: 'a', extra: 1 })).toMatchObject({
      keyword: 'additionalProperties',
    })
  })

  it('refuses a definition with no JSON Schema, naming the tool', () => {
    expect(() => toolInputSchema('t.plain', { query: 'not a schema' })).toThrow(/t\.plain/)
    expect(() => toolInputSchema('t.string', z.string())).toThrow(/t\.string/)
  })

  it('closes an intersection as a whole and writes a $ref shape as the reference alone', () => {
    const context = z
      .object({ projectId: z.string().max(8) })
      .meta({ $ref: 'urn:test:context.schema.json' })
    const both = z.intersection(context, z.object({ query: z.string() }))
    const registry = createSchemaRegistry(
      [
        {
          file: 'context.schema.json',
          source: 'context',
          schema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            $id: 'urn:test:context.schema.json',
            type: 'object',
            properties: { projectId: { type: 'string', maxLength: 8 } },
            required: ['projectId'],
          },
        },
        {
          file: 'both.schema.json',
          source: 'both',
          schema: toolInputSchema('both', both, { idBase: 'urn:test:' }),
        },
      ],
      { sharedFiles: ['context.schema.json'] },
    )
    expect(registry.validate('both', { projectId: 'p', query: 'q' })).toBeNull()
    expect(registry.validate('both', { projectId: 'p', query: 'q', x: 1 })).toMatchObject({
      keyword: 'unevaluatedProperties',
    })
    // The limit comes from the referenced document, not from a copy of the shape.
    expect(registry.validate('both', { projectId: 'p'.repeat(9), query: 'q' })).toMatchObject({
      keyword: 'maxLength',
    })
    expect(JSON.stringify(registry.schema('both'))).not.toContain('maxLength')
    // The own keys sit beside the reference, as a hand-written composition has them.
    expect(registry.schema('both')).toMatchObject({
      allOf: [{ $ref: 'urn:test:context.schema.json' }],
      properties: { query: { type: 'string' } },
      required: ['query'],
      unevaluatedProperties: false,
    })
  })
})
