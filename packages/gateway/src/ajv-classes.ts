import Ajv2019Import from 'ajv/dist/2019.js'
import Ajv2020Import from 'ajv/dist/2020.js'
import addFormatsImport from 'ajv-formats'

// ajv and ajv-formats are CommonJS with `exports.default`; under ESM interop the default import
// may be the module object itself, so both shapes are accepted here, once.
function interop<T>(module: unknown): T {
  return ((module as { default?: unknown }).default ?? module) as T
}

/** Ajv's draft 2020-12 class (its 2019-09 class has the same shape). */
export type AjvClass = typeof import('ajv/dist/2020.js').default
/** An Ajv instance. */
export type AjvInstance = InstanceType<AjvClass>

/** Ajv for draft 2020-12. */
export const Ajv2020: AjvClass = interop<AjvClass>(Ajv2020Import)
/** Ajv for draft 2019-09 (and draft-07 after the gateway's rewrite). */
export const Ajv2019: AjvClass = interop<AjvClass>(Ajv2019Import)
/** `ajv-formats`' plugin. */
export const addFormats: (ajv: AjvInstance) => AjvInstance = interop(addFormatsImport)
