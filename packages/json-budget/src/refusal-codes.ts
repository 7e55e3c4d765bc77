/** What a package says about one refusal code it raises. */
export interface RefusalCodeSpec {
  /** HTTP status an adapter answers with (100–599); `undefined` when nobody is left to answer. */
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

// Codes are part of every package's API: a fixed shape keeps them greppable, bounded in length
// and safe to name in a message.
const CODE_SHAPE = /^ERR_[A-Z0-9_]{1,60}$/
// An npm package name is at most 214 characters.
const MAX_OWNER = 214

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
 * same owner with the same spec (a second loaded copy of the package) is a no-op. The table is
 * checked whole before anything is registered, so a refused table registers nothing.
 * @throws TypeError on an owner that is not a 1–214 character string, a code that is not
 *   `ERR_` and 1–60 of `A–Z 0–9 _`, a malformed spec, or a code registered by another owner or
 *   with another spec. Messages name a registered or well-formed code, never a malformed one.
 */
export function defineRefusalCodes<const T extends Record<string, RefusalCodeSpec>>(
  owner: string,
  table: T,
): Readonly<T> {
  if (typeof owner !== 'string' || owner.length === 0 || owner.length > MAX_OWNER) {
    throw new TypeError('defineRefusalCodes: owner must be a package name of 1–214 characters')
  }
  if (typeof table !== 'object' || table === null) {
    throw new TypeError('defineRefusalCodes: table must be an object')
  }
  const entries: RegisteredRefusalCode[] = []
  for (const [code, spec] of Object.entries(table)) {
    if (!CODE_SHAPE.test(code)) {
      throw new TypeError('defineRefusalCodes: a code is not ERR_ followed by 1–60 of A-Z, 0-9, _')
    }
    checkSpec(code, spec)
    const entry: RegisteredRefusalCode = Object.freeze({
      code,
      owner,
      status: spec.status,
      title: spec.title,
      option: spec.option,
      message: spec.message,
    })
    const known = registry.get(code)
    if (known !== undefined && known.owner !== owner) {
      throw new TypeError(`defineRefusalCodes: ${code} is owned by ${known.owner}`)
    }
    if (known !== undefined && !sameSpec(known, entry)) {
      throw new TypeError(`defineRefusalCodes: ${code} is already registered with another spec`)
    }
    entries.push(entry)
  }
  for (const entry of entries) if (!registry.has(entry.code)) registry.set(entry.code, entry)
  for (const spec of Object.values(table)) Object.freeze(spec)
  return Object.freeze(table)
}

function checkSpec(code: string, spec: RefusalCodeSpec): void {
  const bad = (what: string) => new TypeError(`defineRefusalCodes: ${code}.${what}`)
  if (typeof spec !== 'object' || spec === null) throw bad('spec must be an object')
  const { status, title, option, message } = spec
  if (status !== undefined && !(Number.isInteger(status) && status >= 100 && status <= 599)) {
    throw bad('status must be an HTTP status (100–599) or undefined')
  }
  if (typeof title !== 'string' || title.length === 0) throw bad('title must be a string')
  if (option !== undefined && (typeof option !== 'string' || option.length === 0)) {
    throw bad('option must be a string or undefined')
  }
  if (typeof message !== 'string' || message.length === 0) throw bad('message must be a string')
}

function sameSpec(a: RegisteredRefusalCode, b: RegisteredRefusalCode): boolean {
  return (
    a.status === b.status && a.title === b.title && a.option === b.option && a.message === b.message
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
