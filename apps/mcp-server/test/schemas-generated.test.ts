// schemas/mcp/ is generated from src/tools/inputs.ts by tollgate-schemas: its --check, run as
// the app's `schemas` script runs the command (a child process), passes on the committed files
// and fails, naming the tool, on a folder where one file drifted. The shared tool-context file
// is compared with the context shape the tools compose.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { toolInputSchema } from '@tollgate/mcp-validation'
import { afterAll, describe, expect, it } from 'vitest'
import { SCHEMA_ID_BASE, TOOL_CONTEXT_SHAPE } from '../src/tools/inputs.js'

const APP_DIR = fileURLToPath(new URL('../', import.meta.url))
const SCHEMAS = fileURLToPath(new URL('../../../schemas/mcp/', import.meta.url))
const CLI = join(
  dirname(createRequire(import.meta.url).resolve('@tollgate/mcp-validation/package.json')),
  'src/cli.ts',
)

function check(out: string): { status: number | null; stderr: string } {
  const child = spawnSync(
    process.execPath,
    [
      '--conditions=@tollgate/source',
      '--import',
      'tsx',
      CLI,
      ...['--module', 'src/tools/inputs.ts', '--export', 'TOOL_INPUTS'],
      ...['--out', out, '--id-base', SCHEMA_ID_BASE, '--check'],
    ],
    { cwd: APP_DIR, encoding: 'utf8' },
  )
  return { status: child.status, stderr: child.stderr }
}

const copies: string[] = []
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true })
})

// Rows and files are held equal by input-validation.test.ts (registered tools against
// schemas/mcp/); here, files against TOOL_INPUTS.
describe('TOOL_INPUTS', () => {
  it('agrees with the committed schemas/mcp/ (tollgate-schemas --check exits 0)', () => {
    const result = check(SCHEMAS)
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
  })

  it('control: --check exits 1 naming the tool when a committed file drifts from its input', () => {
    const copy = mkdtempSync(join(tmpdir(), 'mcp-schemas-'))
    copies.push(copy)
    cpSync(SCHEMAS, copy, { recursive: true })
    const path = join(copy, 'knowledge.search.schema.json')
    const widened = JSON.parse(readFileSync(path, 'utf8'))
    delete widened.unevaluatedProperties
    writeFileSync(path, JSON.stringify(widened))
    const result = check(copy)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('changed: knowledge.search')
  })

  it('states the context as tool-context.schema.json does (properties and required keys)', () => {
    const file = JSON.parse(readFileSync(join(SCHEMAS, 'tool-context.schema.json'), 'utf8'))
    const generated = toolInputSchema('tool-context', TOOL_CONTEXT_SHAPE)
    expect(generated.properties).toEqual(file.properties)
    expect(generated.required).toEqual(file.required)
  })
})
