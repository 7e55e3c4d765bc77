// The one build shape of every tollgate package: ESM + CJS with types for each condition,
// Node 20 syntax, tree-shaken. Apps bundle ESM only and emit no types.
import { defineConfig } from 'tsup'

/** @param {string[]} entry */
export function packageBuild(entry = ['src/index.ts']) {
  return defineConfig({
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    treeshake: true,
  })
}

/** @param {string[]} entry */
export function appBuild(entry = ['src/main.ts']) {
  return defineConfig({ entry, format: ['esm'], clean: true, sourcemap: true, target: 'node20' })
}
