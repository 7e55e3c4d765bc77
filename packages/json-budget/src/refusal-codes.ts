/** What a package says about one refusal code it raises. */
export interface RefusalCodeSpec {
  /** HTTP status an adapter answers with; `undefined` when nobody is left to answer. */
  readonly status: number | undefined
  /** The status line's reason phrase, for problem documents. */
  readonly title: string
  /** The option a caller raises (or changes) to admit more; `undefined` when none applies. */
  readonly option: string | undefined
  /** What happened, in a few words. Never holds the caller's bytes. */
  readonly message: string
}

/** A registered code and the package that owns it. */
export interface RegisteredRefusalCode extends RefusalCodeSpec {
  readonly code: string
  readonly owner: string
}

const CODE_SHAPE = /^ERR_[A-Z0-9_]{1,60}$/

// One table per process, whatever copy of this package registered into it (ESM beside CJS, or
// two versions in one tree): `isAdmissionError` and the error constructor read it.
const REGISTRY_KEY = Symbol.for('tollgate.refusalCodes')
type Registry = Map<string, RegisteredRefusalCode>
const registry: Registry =
  ((globalThis as Record<symbol, unknown>)[REGISTRY_KEY] as Registry | undefined) ??
  (() => {
    const created: Registry = new Map()
    Object.defineProperty(globalThis, REGISTRY_KEY, { value: created })
    return created
  })()

/**
 * Registers the refusal codes a package raises, with their status, title, option and message,
 * and returns the table frozen. The package that throws a code owns it: only it defines the
 * code, and its option names one of its own options. Registering the same code again from the
 * same owner with the same spec (a second loaded copy) is a no-op.
 * @throws TypeError on a malformed code, or a code another owner (or another spec) registered.
 */
export function defineRefusalCodes<const T extends Record<string, RefusalCodeSpec>>(
  owner: string,
  table: T,
): Readonly<T> {
  for (const [code, spec] of Object.entries(table)) {
    if (!CODE_SHAPE.test(code))
      throw new TypeError(`refusal code ${code.slice(0, 64)} is not ERR_*`)
    const entry: RegisteredRefusalCode = Object.freeze({ code, owner, ...spec })
    const known = registry.get(code)
    if (known !== undefined) {
      if (!sameSpec(known, entry)) {
        throw new TypeError(`refusal code ${code} is already defined by ${known.owner}`)
      }
      continue
    }
    registry.set(code, entry)
  }
  for (const spec of Object.values(table)) Object.freeze(spec)
  return Object.freeze(table)
}

function sameSpec(a: RegisteredRefusalCode, b: RegisteredRefusalCode): boolean {
  return (
    a.owner === b.owner &&
    a.status === b.status &&
    a.title === b.title &&
    a.option === b.option &&
    a.message === b.message
  )
}

/** The registered spec of `code`, or `undefined` when no loaded package defines it. */
export function refusalCodeSpec(code: string): RegisteredRefusalCode | undefined {
  return registry.get(code)
}

/**
 * Every code the loaded packages registered, in registration order. A code appears once its
 * owner package has been imported.
 */
export function listRefusalCodes(): readonly RegisteredRefusalCode[] {
  return Object.freeze([...registry.values()])
}
