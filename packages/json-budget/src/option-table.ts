/**
 * One option of a configurable thing, declared once: the value `undefined` resolves to, the
 * check a set value must pass, the highest value a numeric option may take, and the line the
 * README's options table shows. The option's type is the type of `default`.
 */
export interface OptionRow<T> {
  /** The value an option left `undefined` resolves to. */
  readonly default: T
  /** Throws a `TypeError` naming the option when `value` (never `undefined`) is wrong. */
  readonly check: (value: unknown, name: string) => void
  /** Highest value a numeric option may be set to, checked after `check`. Default: none. */
  readonly ceiling?: number
  /** What the option does, one line of the README's options table. */
  readonly doc: string
  /** How the README writes the default, when rendering `default` would not say it. */
  readonly shown?: string
  /** Turns a value that passed `check` into the one the policy holds (copied, frozen, cased). */
  // A method, so its parameter is bivariant and a row of any type is an `OptionRow<unknown>`.
  normalize?(value: T): T
}

/** The rows of one configurable thing, keyed by option name. */
export type OptionRows = { readonly [name: string]: OptionRow<unknown> }

/** The value type of a row. */
export type OptionValue<Row> = Row extends OptionRow<infer T> ? T : never

/** The input type a table derives: every option optional; `undefined` means the default. */
export type OptionsOf<R> = { readonly [K in keyof R]?: OptionValue<R[K]> | undefined }

/** The resolved type a table derives: every option set. */
export type ResolvedOf<R> = { readonly [K in keyof R]: OptionValue<R[K]> }

/** Changes to some rows of a table (a new default, a new ceiling), for a derived table. */
export type RowChanges<R> = { readonly [K in keyof R]?: Partial<OptionRow<OptionValue<R[K]>>> }

/**
 * One table per configurable thing, from which its input type ({@link OptionsOf}), its frozen
 * defaults, its validation and its README table come.
 */
export interface OptionTable<R extends OptionRows> {
  /** The name errors start with (`'preflight'`, `'bodyAdmission'`). */
  readonly where: string
  /** The rows, as declared. */
  readonly rows: R
  /** The option names, in declaration order. */
  readonly names: readonly (keyof R & string)[]
  /** Every option at its default, frozen. */
  readonly defaults: ResolvedOf<R>
  /**
   * Validates `input` (`undefined` is no options) and returns every option set, frozen: an
   * unknown option, a value its check refuses or one above its ceiling is a `TypeError` naming
   * the option. An input that sets no option resolves to {@link OptionTable.defaults} itself,
   * and an object this method returned is returned as it is.
   * @throws TypeError naming `where` and the option.
   */
  resolve(input: unknown): ResolvedOf<R>
  /**
   * As {@link OptionTable.resolve}, but reads only this table's options and ignores any other
   * key, for a function whose options object holds this table's options among others.
   * @throws TypeError naming the option.
   */
  pick(input: unknown): ResolvedOf<R>
  /** A new table with some rows changed (a host's own default for a shared option). */
  with(where: string, changes: RowChanges<R>): OptionTable<R>
  /** A new table without the named rows (a host that fixes them itself). */
  without<K extends keyof R & string>(where: string, ...names: K[]): OptionTable<Omit<R, K>>
  /** The README's options table: `| option | default | what it does |`, one row per option. */
  markdown(): string
}

/**
 * Declares one option. The type parameter is the option's type, inferred from `default` or
 * given (`option<'allow' | 'refuse'>({ … })`).
 */
export function option<T>(row: OptionRow<T>): OptionRow<T> {
  return Object.freeze({ ...row })
}

/**
 * Declares the options table of one configurable thing (see {@link OptionTable}).
 * @throws TypeError when a default fails its own check or ceiling (a bug in the table).
 */
export function defineOptions<R extends OptionRows>(where: string, rows: R): OptionTable<R> {
  const frozenRows = Object.freeze({ ...rows }) as R
  const names = Object.freeze(Object.keys(frozenRows)) as readonly (keyof R & string)[]
  const table = rows as unknown as Record<string, OptionRow<unknown>>
  const defaults: Record<string, unknown> = {}
  for (const name of names) {
    const row = table[name] as OptionRow<unknown>
    if (row.default !== undefined) checkValue(row, row.default, name)
    defaults[name] = row.default
  }
  const frozenDefaults = Object.freeze(defaults) as ResolvedOf<R>
  // Objects this table resolved: passed back, they are returned as they are.
  const resolved = new WeakSet<object>([frozenDefaults])

  const build = (input: Record<string, unknown>): ResolvedOf<R> => {
    let set = false
    const out: Record<string, unknown> = {}
    for (const name of names) {
      const value = input[name]
      const row = table[name] as OptionRow<unknown>
      if (value === undefined) {
        out[name] = row.default
      } else {
        set = true
        checkValue(row, value, name)
        out[name] = row.normalize === undefined ? value : row.normalize(value)
      }
    }
    if (!set) return frozenDefaults
    const result = Object.freeze(out) as ResolvedOf<R>
    resolved.add(result)
    return result
  }

  return Object.freeze({
    where,
    rows: frozenRows,
    names,
    defaults: frozenDefaults,
    resolve(input: unknown): ResolvedOf<R> {
      if (input === undefined) return frozenDefaults
      if (resolved.has(input as object)) return input as ResolvedOf<R>
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw new TypeError(`${where}: options must be an object`)
      }
      for (const key of Object.keys(input)) {
        if (!Object.hasOwn(table, key)) {
          throw new TypeError(`${where}: unknown option ${key.slice(0, 64)}`)
        }
      }
      return build(input as Record<string, unknown>)
    },
    pick(input: unknown): ResolvedOf<R> {
      if (input === undefined) return frozenDefaults
      if (resolved.has(input as object)) return input as ResolvedOf<R>
      if (typeof input !== 'object' || input === null) {
        throw new TypeError(`${where}: options must be an object`)
      }
      return build(input as Record<string, unknown>)
    },
    with(nextWhere: string, changes: RowChanges<R>): OptionTable<R> {
      const next: Record<string, OptionRow<unknown>> = { ...table }
      for (const [name, change] of Object.entries(changes)) {
        if (!Object.hasOwn(table, name)) throw new TypeError(`${where}: no option ${name}`)
        next[name] = option({ ...(table[name] as OptionRow<unknown>), ...(change as object) })
      }
      return defineOptions(nextWhere, next as unknown as R)
    },
    without<K extends keyof R & string>(nextWhere: string, ...drop: K[]): OptionTable<Omit<R, K>> {
      const next: Record<string, OptionRow<unknown>> = {}
      for (const name of names) {
        if (!(drop as string[]).includes(name)) next[name] = table[name] as OptionRow<unknown>
      }
      return defineOptions(nextWhere, next as unknown as Omit<R, K>)
    },
    markdown(): string {
      const lines = ['| option | default | what it does |', '| --- | --- | --- |']
      for (const name of names) {
        const row = table[name] as OptionRow<unknown>
        const shown = row.shown ?? showDefault(row.default)
        lines.push(`| \`${name}\` | ${shown} | ${row.doc.replaceAll('|', '\\|')} |`)
      }
      return lines.join('\n')
    },
  })
}

function checkValue(row: OptionRow<unknown>, value: unknown, name: string): void {
  row.check(value, name)
  if (row.ceiling !== undefined && typeof value === 'number' && value > row.ceiling) {
    throw new TypeError(`${name} may not exceed ${row.ceiling}, got ${value}`)
  }
}

const MiB = 1024 * 1024

/** The README form of a default: `64 MiB`, `100,000`, `'refuse'`, `true`, `none`. */
function showDefault(value: unknown): string {
  if (value === undefined || value === Number.POSITIVE_INFINITY) return 'none'
  if (typeof value === 'number') {
    if (value >= MiB && value % MiB === 0) return `${value / MiB} MiB`
    return value.toLocaleString('en-US')
  }
  if (typeof value === 'string') return `\`'${value}'\``
  if (Array.isArray(value)) return `\`${JSON.stringify(value)}\``
  return `\`${String(value)}\``
}
