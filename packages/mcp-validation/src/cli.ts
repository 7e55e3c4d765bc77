#!/usr/bin/env node
// tollgate-schemas: writes (or checks) the published input schema of each tool a server
// defines, from the server's own definitions.
//
//   tollgate-schemas --module ./dist/tools.js [--export tools] --out schemas/mcp [--check]
//
// Exit status: 0 written or in agreement; 1 `--check` found files that differ (their tool names
// on stderr); 2 a usage error or a module that cannot be read.

import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { compareSchemaFolder, writeSchemaFolder } from './schema-folder.js'
import { DEFAULT_SCHEMA_ID_BASE, toolInputSchemas } from './tool-schemas.js'

const HELP = `Usage: tollgate-schemas --module <file> [--export <name>] --out <dir> [--check] [--id-base <uri>]

Writes <dir>/<tool>.schema.json for every tool the module's export defines: an McpServer (SDK
1.32 or 2.x), a tool table (rows with name and inputSchema), a record of input schemas by tool
name, or a function returning one of these. zod 4 shapes become JSON Schema draft 2020-12 through
zod's own conversion; every object is closed (additionalProperties: false) unless passthrough.

  --module <file>    the module to import (a built .js file, or .ts under a loader)
  --export <name>    the export to read (default: tools)
  --out <dir>        the schema folder
  --check            write nothing; exit 1 naming the tools whose files differ, are missing, or
                     name a tool not defined
  --id-base <uri>    what each $id starts with (default: ${DEFAULT_SCHEMA_ID_BASE})
`

async function main(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({
      args: argv,
      options: {
        module: { type: 'string' },
        export: { type: 'string', default: 'tools' },
        out: { type: 'string' },
        check: { type: 'boolean', default: false },
        'id-base': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values
  } catch (error) {
    process.stderr.write(`tollgate-schemas: ${(error as Error).message}\n${HELP}`)
    return 2
  }
  if (values.help === true) {
    process.stdout.write(HELP)
    return 0
  }
  const modulePath = values.module
  const out = values.out
  if (typeof modulePath !== 'string' || typeof out !== 'string') {
    process.stderr.write(`tollgate-schemas: --module and --out are required\n${HELP}`)
    return 2
  }
  const exportName = values.export as string
  let schemas: ReadonlyMap<string, Record<string, unknown>>
  try {
    const loaded = (await import(pathToFileURL(resolve(modulePath)).href)) as Record<
      string,
      unknown
    >
    if (!(exportName in loaded)) throw new Error(`the module has no export named ${exportName}`)
    let source = loaded[exportName]
    if (typeof source === 'function') source = await (source as () => unknown)()
    const idBase = values['id-base']
    schemas = toolInputSchemas(source, typeof idBase === 'string' ? { idBase } : {})
  } catch (error) {
    process.stderr.write(`tollgate-schemas: ${(error as Error).message}\n`)
    return 2
  }
  const dir = resolve(out)
  if (values.check === true) {
    const report = compareSchemaFolder(dir, schemas)
    if (report.ok) {
      process.stdout.write(`tollgate-schemas: ${schemas.size} schemas agree with ${out}\n`)
      return 0
    }
    const parts = [
      ['missing', report.missing],
      ['changed', report.changed],
      ['not defined', report.extra],
    ] as const
    for (const [what, tools] of parts) {
      if (tools.length > 0) process.stderr.write(`tollgate-schemas: ${what}: ${tools.join(', ')}\n`)
    }
    process.stderr.write(
      `tollgate-schemas: ${report.differing.length} tools differ from ${out}; run without --check to write them\n`,
    )
    return 1
  }
  try {
    writeSchemaFolder(dir, schemas)
  } catch (error) {
    process.stderr.write(`tollgate-schemas: ${(error as Error).message}\n`)
    return 2
  }
  process.stdout.write(`tollgate-schemas: wrote ${schemas.size} schemas to ${out}\n`)
  return 0
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`tollgate-schemas: ${(error as Error).message}\n`)
    process.exitCode = 2
  },
)
