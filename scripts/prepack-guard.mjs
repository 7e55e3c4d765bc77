#!/usr/bin/env node
// The `prepack` of every package: refuses to pack a package whose build output is missing.
// `pnpm pack` in an unbuilt package used to produce a tarball holding only README.md and
// package.json, which installs and then fails with ERR_MODULE_NOT_FOUND. Every file the
// packed manifest points at (publishConfig.exports, main, module, types, bin) must exist.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const dir = process.cwd()
const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))

/** Every relative path string inside an exports map (conditions nested at any depth). */
function targets(value, out = []) {
  if (typeof value === 'string') {
    if (value.startsWith('./') && value !== './package.json') out.push(value)
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) targets(v, out)
  }
  return out
}

const exportsMap = manifest.publishConfig?.exports ?? manifest.exports
const bin = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {})
const files = new Set([
  ...targets(exportsMap),
  ...[manifest.main, manifest.module, manifest.types, ...bin].filter((f) => typeof f === 'string'),
])
const missing = [...files].filter((f) => !existsSync(join(dir, f)))
if (missing.length > 0) {
  process.stderr.write(
    `${manifest.name}: refusing to pack an unbuilt package (${missing.length} file(s) missing, first ${missing[0]}). From the repository root run \`pnpm pack:all\` (builds and packs every package into .packs/), or \`pnpm --filter ${manifest.name}... build\` before packing.\n`,
  )
  process.exit(1)
}
