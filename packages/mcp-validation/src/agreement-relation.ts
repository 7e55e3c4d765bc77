import { Ajv07, Ajv2020, addFormats } from './ajv-load.js'
import { admitsOnlyBmp } from './regex-modes.js'

// The asymmetric relation between a published schema and the handler's (the published side
// may narrow, never widen), computed keyword by keyword: does the published schema (a conjunction of schemas: itself and its allOf branches) admit only what
// the handler's derived schema admits? Sound rather than complete: where it cannot decide, it
// reports `unsupported` instead of agreeing.

/** Which rule of the relation a finding breaks. */
export type AgreementRule =
  | 'required-differs'
  | 'published-key-unhandled'
  | 'unpublished-parameter'
  | 'published-wider'
  | 'enum-narrower'
  | 'unsupported'

/** One disagreement: the rule, where (a pointer into the arguments), and what differs. */
export interface AgreementFinding {
  readonly rule: AgreementRule
  readonly pointer: string
  readonly detail: string
}

type Schema = boolean | { readonly [key: string]: unknown }
type Obj = { readonly [key: string]: unknown }

const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'readOnly',
  'writeOnly',
  'deprecated',
])
// Keywords on the derived side this relation knows how to compare.
const KNOWN = new Set([
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'anyOf',
  'allOf',
])
const TYPES = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'] as const

/** How the handler measures a string's length for `minLength`/`maxLength`. */
export type StringLengthUnit = 'code-points' | 'code-units'

/** Context of one comparison: findings collect here; `excluded` applies at the root only. */
export interface RelationContext {
  readonly findings: AgreementFinding[]
  readonly excluded: ReadonlySet<string>
  readonly excludedApplied: Set<string>
  /** The handler's length unit (Ajv, on the published side, counts code points). */
  readonly lengthUnit: StringLengthUnit
}

/** Flattens a published schema into its conjuncts: itself and, recursively, its allOf. */
export function conjuncts(schema: unknown): Schema[] {
  if (typeof schema === 'boolean') return [schema]
  if (typeof schema !== 'object' || schema === null) throw new TypeError('not a schema')
  if ('$ref' in schema) throw new TypeError('published schema holds a $ref: pass it bundled')
  const out: Schema[] = [schema as Obj]
  const allOf = (schema as Obj).allOf
  if (Array.isArray(allOf)) for (const each of allOf) out.push(...conjuncts(each))
  return out
}

function objs(p: readonly Schema[]): Obj[] {
  return p.filter((s): s is Obj => typeof s === 'object')
}

/** The JSON types a conjunction admits (`integer` included in `number` handled by callers). */
function typeSet(p: readonly Schema[]): Set<string> {
  let set = new Set<string>(TYPES)
  for (const s of objs(p)) {
    if (s.type === undefined) continue
    const listed = new Set(Array.isArray(s.type) ? (s.type as string[]) : [s.type as string])
    if (listed.has('number')) listed.add('integer')
    set = new Set([...set].filter((t) => listed.has(t)))
  }
  return set
}

function derivedTypes(d: Obj): Set<string> | undefined {
  if (d.type === undefined) return undefined
  const set = new Set(Array.isArray(d.type) ? (d.type as string[]) : [d.type as string])
  if (set.has('number')) set.add('integer')
  return set
}

function strip(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema
  const { $schema: _s, $id: _i, ...rest } = schema as Obj
  return rest
}

function finiteValues(p: readonly Schema[]): unknown[] | undefined {
  let values: unknown[] | undefined
  for (const s of objs(p)) {
    const own = 'const' in s ? [s.const] : Array.isArray(s.enum) ? s.enum : undefined
    if (own === undefined) continue
    values = values === undefined ? [...own] : values.filter((v) => own.some((o) => same(o, v)))
  }
  if (values === undefined) return undefined
  const admit = new Ajv2020({ strict: false }).compile({ allOf: p.map(strip) })
  return values.filter((v) => admit(v))
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

function some(p: readonly Schema[], test: (s: Obj) => boolean): boolean {
  return objs(p).some(test)
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined
}

/** Reports every way `p` (published conjuncts) may admit what `d` (derived) refuses. */
export function relate(p: readonly Schema[], d: unknown, at: string, ctx: RelationContext): void {
  const add = (rule: AgreementRule, detail: string, pointer = at): void => {
    ctx.findings.push({ rule, pointer, detail })
  }
  if (p.includes(false)) return // admits nothing, so nothing the handler refuses
  if (d === true || (typeof d === 'object' && d !== null && Object.keys(d).length === 0)) return
  if (d === false) {
    add('published-wider', 'the handler admits nothing here')
    return
  }
  if (typeof d !== 'object' || d === null) {
    add('unsupported', 'derived schema is not a schema')
    return
  }
  const ds = d as Obj
  for (const key of Object.keys(ds)) {
    if (!KNOWN.has(key) && !ANNOTATIONS.has(key)) add('unsupported', `derived keyword ${key}`)
  }
  const finite = finiteValues(p)
  const dFinite = 'const' in ds ? [ds.const] : Array.isArray(ds.enum) ? ds.enum : undefined
  if (finite !== undefined) {
    // Exact over a finite published domain: every value it admits must be one the handler takes.
    // Judged as the handler reads it: its regex without the `u` flag, its length unit, and its
    // `format` (ajv-formats, as the registry loads; without it Ajv ignores a format, and an
    // enum value the handler's format refuses would agree).
    const judge = new Ajv07({
      strict: false,
      unicodeRegExp: false,
      unicode: ctx.lengthUnit === 'code-points',
    })
    addFormats(judge as unknown as Parameters<typeof addFormats>[0])
    const take = judge.compile(strip(ds) as object)
    const refused = finite.filter((v) => !take(v))
    if (refused.length > 0) add('published-wider', `admits ${JSON.stringify(refused)}`)
  } else if (dFinite !== undefined) {
    add('published-wider', `admits values outside the handler's ${JSON.stringify(dFinite)}`)
  }
  if (dFinite !== undefined) {
    const kept = finite ?? []
    const dropped = dFinite.filter((v) => !kept.some((k) => same(k, v)))
    if (finite !== undefined && dropped.length > 0) {
      add('enum-narrower', `drops ${JSON.stringify(dropped)} the handler serves`)
    }
  }
  if (finite !== undefined) return
  if (Array.isArray(ds.allOf)) for (const each of ds.allOf) relate(p, each, at, ctx)
  if (Array.isArray(ds.anyOf)) {
    relateAnyOf(p, ds, at, ctx)
    return
  }
  const types = typeSet(p)
  const dTypes = derivedTypes(ds)
  if (dTypes !== undefined) {
    const wider = [...types].filter((t) => !dTypes.has(t))
    if (wider.length > 0) add('published-wider', `admits type ${wider.join(', ')}`)
  }
  if (types.has('string')) relateString(p, ds, ctx.lengthUnit, add)
  if (types.has('number') || types.has('integer')) relateNumber(p, ds, add)
  if (types.has('array')) relateArray(p, ds, at, ctx, add)
  if (types.has('object')) relateObject(p, ds, at, ctx)
}

type Add = (rule: AgreementRule, detail: string, pointer?: string) => void

function relateAnyOf(p: readonly Schema[], ds: Obj, at: string, ctx: RelationContext): void {
  const { anyOf, ...rest } = ds
  const branches = anyOf as unknown[]
  const fits = (q: readonly Schema[]): boolean =>
    branches.some((b) => {
      const trial: RelationContext = { ...ctx, findings: [] }
      relate(q, { ...rest, allOf: [b] }, at, trial)
      return trial.findings.length === 0
    })
  if (fits(p)) return
  // Split the published side by type: each type may fit a different branch (nullable unions).
  const types = [...typeSet(p)].filter((t) => !(t === 'integer' && typeSet(p).has('number')))
  if (types.length > 1 && types.every((t) => fits([...p, { type: t }]))) return
  ctx.findings.push({ rule: 'published-wider', pointer: at, detail: 'fits no branch of anyOf' })
}

function relateString(p: readonly Schema[], ds: Obj, unit: StringLengthUnit, add: Add): void {
  // Whether the published side admits only strings without astral characters: there Ajv's
  // `u`-mode regex and a regex without `u` read alike, and a code point is one code unit.
  const bmp = some(p, (s) => typeof s.pattern === 'string' && admitsOnlyBmp(s.pattern))
  const min = num(ds.minLength)
  // A lower bound of 0 constrains nothing, so nothing need match it. Ajv counts code points,
  // never more than code units, so a published minimum in code points is one in units too.
  if (min !== undefined && min > 0 && !some(p, (s) => (num(s.minLength) ?? -1) >= min)) {
    add('published-wider', `minLength below the handler's ${min}`)
  }
  const max = num(ds.maxLength)
  // A string of n code points holds up to 2n code units: against a handler counting units,
  // the published maximum must fit twice over unless only BMP strings are admitted.
  const factor = unit === 'code-units' && !bmp ? 2 : 1
  if (max !== undefined && !some(p, (s) => (num(s.maxLength) ?? Infinity) * factor <= max)) {
    add(
      'published-wider',
      factor === 2
        ? `maxLength (code points) admits more than the handler's ${max} UTF-16 code units`
        : `maxLength above the handler's ${max}`,
    )
  }
  if (ds.pattern !== undefined) {
    if (!some(p, (s) => s.pattern === ds.pattern)) {
      add('published-wider', `lacks the handler's pattern ${JSON.stringify(ds.pattern)}`)
    } else if (!bmp) {
      add(
        'published-wider',
        `pattern ${JSON.stringify(ds.pattern)} may admit under Ajv's unicode mode what the handler's regex refuses (astral characters)`,
      )
    }
  }
  if (ds.format !== undefined && !some(p, (s) => s.format === ds.format)) {
    add('published-wider', `lacks the handler's format ${JSON.stringify(ds.format)}`)
  }
}

function relateNumber(p: readonly Schema[], ds: Obj, add: Add): void {
  const lower = (s: Obj): [number, boolean] | undefined => {
    const m = num(s.minimum)
    const e = num(s.exclusiveMinimum)
    if (e !== undefined && (m === undefined || e >= m)) return [e, true]
    return m === undefined ? undefined : [m, false]
  }
  const upper = (s: Obj): [number, boolean] | undefined => {
    const m = num(s.maximum)
    const e = num(s.exclusiveMaximum)
    if (e !== undefined && (m === undefined || e <= m)) return [e, true]
    return m === undefined ? undefined : [m, false]
  }
  const dl = lower(ds)
  if (dl !== undefined) {
    const ok = some(p, (s) => {
      const pl = lower(s)
      return pl !== undefined && (pl[0] > dl[0] || (pl[0] === dl[0] && (pl[1] || !dl[1])))
    })
    if (!ok) add('published-wider', `lower bound below the handler's ${dl[0]}`)
  }
  const du = upper(ds)
  if (du !== undefined) {
    const ok = some(p, (s) => {
      const pu = upper(s)
      return pu !== undefined && (pu[0] < du[0] || (pu[0] === du[0] && (pu[1] || !du[1])))
    })
    if (!ok) add('published-wider', `upper bound above the handler's ${du[0]}`)
  }
  const k = num(ds.multipleOf)
  if (k !== undefined && !some(p, (s) => Number.isInteger((num(s.multipleOf) ?? 0.5) / k))) {
    add('published-wider', `lacks multipleOf ${k}`)
  }
}

function relateArray(p: readonly Schema[], ds: Obj, at: string, ctx: RelationContext, add: Add) {
  const min = num(ds.minItems)
  if (min !== undefined && min > 0 && !some(p, (s) => (num(s.minItems) ?? -1) >= min)) {
    add('published-wider', `minItems below the handler's ${min}`)
  }
  const max = num(ds.maxItems)
  if (max !== undefined && !some(p, (s) => (num(s.maxItems) ?? Infinity) <= max)) {
    add('published-wider', `maxItems above the handler's ${max}`)
  }
  if (ds.uniqueItems === true && !some(p, (s) => s.uniqueItems === true)) {
    add('published-wider', 'lacks uniqueItems')
  }
  if (ds.items === undefined) return
  if (Array.isArray(ds.items)) return add('unsupported', 'tuple items')
  const items = objs(p).flatMap((s) => (s.items === undefined ? [] : conjuncts(s.items)))
  if (some(p, (s) => s.maxItems === 0)) return
  relate(items.length === 0 ? [true] : items, ds.items, `${at}/items`, ctx)
}

function relateObject(p: readonly Schema[], ds: Obj, at: string, ctx: RelationContext): void {
  const root = at === ''
  const excluded = (key: string): boolean => root && ctx.excluded.has(key)
  const pProps = new Map<string, Schema[]>()
  for (const s of objs(p)) {
    const props = (s.properties ?? {}) as Obj
    for (const [key, sub] of Object.entries(props)) {
      pProps.set(key, [...(pProps.get(key) ?? []), ...conjuncts(sub)])
    }
  }
  const dProps = (ds.properties ?? {}) as Obj
  const extra = ds.additionalProperties
  const open = typeof extra === 'object' && extra !== null && Object.keys(extra).length > 0
  const ptr = (key: string) => `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
  for (const [key, sub] of pProps) {
    if (Object.hasOwn(dProps, key)) relate(sub, dProps[key], ptr(key), ctx)
    else if (excluded(key)) ctx.excludedApplied.add(key)
    else if (open) relate(sub, extra, ptr(key), ctx)
    else
      ctx.findings.push({
        rule: 'published-key-unhandled',
        pointer: ptr(key),
        detail: 'published, but the handler has no such parameter',
      })
  }
  for (const key of Object.keys(dProps)) {
    if (!pProps.has(key)) {
      ctx.findings.push({
        rule: 'unpublished-parameter',
        pointer: ptr(key),
        detail: 'a handler parameter the published schema does not name',
      })
    }
  }
  const pReq = new Set(objs(p).flatMap((s) => (Array.isArray(s.required) ? s.required : [])))
  const dReq = new Set(Array.isArray(ds.required) ? (ds.required as string[]) : [])
  for (const key of pReq) {
    if (!dReq.has(key) && !excluded(key)) {
      ctx.findings.push({
        rule: 'required-differs',
        pointer: ptr(key),
        detail: 'required only in the published schema',
      })
    }
  }
  for (const key of dReq) {
    if (!pReq.has(key) && !excluded(key)) {
      ctx.findings.push({
        rule: 'required-differs',
        pointer: ptr(key),
        detail: 'required by the handler, optional in the published schema',
      })
    }
  }
}
