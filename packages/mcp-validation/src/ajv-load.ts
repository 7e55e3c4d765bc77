import Ajv2020Import from 'ajv/dist/2020.js'
import Ajv07Import from 'ajv/dist/ajv.js'
import addFormatsImport from 'ajv-formats'

// ajv and ajv-formats are CommonJS with `exports.default`; under ESM interop the default
// import may be the module object itself, so both shapes are accepted here, once.

/** Ajv's draft 2020-12 class. */
export type Ajv2020Class = typeof import('ajv/dist/2020.js').default
/** An Ajv 2020-12 instance. */
export type Ajv2020Instance = InstanceType<Ajv2020Class>
/** A compiled validator. */
export type ValidateFunction = ReturnType<Ajv2020Instance['compile']>
type Ajv07Class = typeof import('ajv/dist/ajv.js').default

function interop<T>(module: unknown): T {
  return ((module as { default?: unknown }).default ?? module) as T
}

/** Ajv for draft 2020-12 (the published schemas). */
export const Ajv2020 = interop<Ajv2020Class>(Ajv2020Import)
/** Ajv for draft-07 (what the SDK derives from zod). */
export const Ajv07 = interop<Ajv07Class>(Ajv07Import)
/** `ajv-formats`' plugin. */
export const addFormats = interop<(ajv: Ajv2020Instance) => Ajv2020Instance>(addFormatsImport)
