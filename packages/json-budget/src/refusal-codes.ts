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

/** Where registered codes are kept: code → entry, in registration order. */
export type RefusalCodeTable = Map<string, RegisteredRefusalCode>

/**
 * A registry of refusal codes over one {@link RefusalCodeTable}. Internal: not exported from
 * the package root. The public functions of this module use the one over
 * {@link sharedRefusalCodeTable}; tests build their own over a fresh table, and two registries
 * over the same table behave as two loaded copies of the package.
 */
export interface RefusalCodeRegistry {
  /** {@link defineRefusalCodes} into this registry's table. */
  define<const T extends Record<string, RefusalCodeSpec>>(owner: string, table: T): Readonly<T>
  /** {@link refusalCodeSpec} from this registry's table. */
  spec(code: string): RegisteredRefusalCode | undefined
  /** {@link listRefusalCodes} from this registry's table. */
  list(): readonly RegisteredRefusalCode[]
}

/**
 * The process-wide table, kept on `host` (default `globalThis`) under
 * `Symbol.for('tollgate.refusalCodes')`, so every copy of this package in the process (ESM
 * beside CJS, or two versions in one tree) registers into one table and `isAdmissionError`
 * and the error constructor of each copy read it. Created on first use as a non-enumerable,
 * non-writable, non-configurable property; later calls return that same table. Internal: not
 * exported from the package root.
 */
export function sharedRefusalCodeTable(host: object = globalThis): RefusalCodeTable {
  // The key is built here rather than at module scope so a test of this function reaches it.
  const key = Symbol.for('tollgate.refusalCodes')
  const slot = host as Record<symbol, unknown>
  const known = slot[key] as RefusalCodeTable | undefined
  if (known !== undefined) return known
  const created: RefusalCodeTable = new Map()
  Object.defineProperty(host, key, { value: created })
  return created
}

/**
 * A registry over `table` (default a new, empty one). Internal: not exported from the package
 * root; see {@link RefusalCodeRegistry}.
 */
export function createRefusalCodeRegistry(
  table: RefusalCodeTable = new Map(),
): RefusalCodeRegistry {
  return {
    define: (owner, codes) => defineInto(table, owner, codes),
    spec: (code) => table.get(code),
    list: () => Object.freeze([...table.values()]),
  }
}

const processRegistry = createRefusalCodeRegistry(sharedRefusalCodeTable())

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
  return processRegistry.define(owner, table)
}

/** The registered spec of `code`, or `undefined` when no loaded package defines it. */
export function refusalCodeSpec(code: string): RegisteredRefusalCode | undefined {
  return processRegistry.spec(code)
}

/**
 * Every code the loaded packages registered, in registration order. A code appears once its
 * owner package has been imported.
 */
export function listRefusalCodes(): readonly RegisteredRefusalCode[] {
  return processRegistry.list()
}

function defineInto<const T extends Record<string, RefusalCodeSpec>>(
  registry: RefusalCodeTable,
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
