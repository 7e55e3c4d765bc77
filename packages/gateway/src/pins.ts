import { createHash } from 'node:crypto'
import { readPins, writePins } from './pins-file.js'
import type { UpstreamTool } from './tool-guard.js'

// Tool pinning against a rug pull: an upstream that changes what a tool says it does (its
// description is read by the model), what it takes or how it is annotated after the operator
// trusted it. Every field of every tool is hashed, not a chosen few (a new field such as an
// `x-mcp-header` annotation or an icon is a change too), and the set of names is hashed on its
// own, so a rename is seen as a removal and an addition rather than as two unrelated tools.
//
// The pin file (JSON, mode 0600, written to a temporary file and renamed over the old one, so
// a reader never sees half of it):
//   { "version": 1,
//     "names": "<sha-256 hex of the sorted tool names>",
//     "tools": { "<tool name>": "<sha-256 hex of the tool's canonical JSON>" } }
// It is read again on every judgment, so an approval written by another process (the
// `pins approve` command) takes effect at the next `tools/list` without a restart. Deleting
// the file re-pins everything on the next judgment (first sight again).

/** The code of a pin file that cannot be read or is not a pin file. */
export const PINS_FILE_ERROR = 'ERR_PINS_FILE'
/** The code of pins in Redis that cannot be read or written (and none were read before). */
export const PINS_STORE_ERROR = 'ERR_PINS_STORE'

/** A pin file that cannot be read, parsed or written (`code` is `ERR_PINS_FILE`). */
export class PinsFileError extends Error {
  readonly code = PINS_FILE_ERROR
  constructor(message: string) {
    super(message)
    this.name = 'PinsFileError'
  }
}

/** Why a tool is not approved. */
export type DriftReason = 'changed' | 'new' | 'removed'

/** The verdict of {@link PinStore.judge}. */
export interface PinJudgment {
  /** Tools whose every field hashes as pinned (all of them at first sight). */
  readonly approved: readonly UpstreamTool[]
  /** Tools to quarantine (`removed`: pinned, no longer listed; nothing to serve). */
  readonly drifted: readonly { readonly name: string; readonly reason: DriftReason }[]
  /** Whether the set of names differs from the pinned one (a rename, an addition, a removal). */
  readonly namesChanged: boolean
  /** True when this judgment pinned the tools (nothing was pinned before). */
  readonly firstSight: boolean
  /**
   * `ERR_PINS_FILE` when the pin file became unreadable or invalid since construction,
   * `ERR_PINS_STORE` when pins in Redis cannot be read and none were read before: then nothing
   * is approved and every listed tool is drifted as `changed` (fail closed).
   */
  readonly error?: typeof PINS_FILE_ERROR | typeof PINS_STORE_ERROR
}

/** Pins of one upstream's tool definitions, in a file, in memory, or in Redis (`redisPinStore`). */
export interface PinStore {
  /**
   * Pins on first sight (nothing pinned yet: the canonical hash of every field of every tool
   * and of the name set; an empty list is pinned too); afterwards a changed, new (a rename's new name included) or removed
   * tool is returned as drifted, to be quarantined until {@link PinStore.approve}.
   * The file and memory stores answer at once; the Redis store after one round trip.
   * @throws PinsFileError when the pin file cannot be written at first sight.
   */
  judge(tools: readonly UpstreamTool[]): PinJudgment | Promise<PinJudgment>
  /**
   * Operator approval of the current definitions: all of them (the pins become exactly
   * `tools`), or only the named tools (a named tool no longer listed loses its pin).
   * @throws PinsFileError when the pin file cannot be read or written, or when a name is
   *   neither listed nor pinned (a typo must not pass for an approval).
   */
  approve(tools: readonly UpstreamTool[], names?: readonly string[]): void | Promise<void>
  /**
   * Calls `onChange` when another process changed the pins (an approval), so a gateway judges
   * its tools again without waiting for `list_changed`; returns the function that stops it.
   * Only stores shared between processes have it.
   */
  watch?(onChange: () => void): () => void
}

/** A {@link PinStore} of this process (a file, or memory): it answers at once. */
export interface LocalPinStore extends PinStore {
  judge(tools: readonly UpstreamTool[]): PinJudgment
  approve(tools: readonly UpstreamTool[], names?: readonly string[]): void
}

/** The pins one store holds: tool name → sha-256 hex of its canonical JSON. */
export interface Pins {
  readonly tools: Map<string, string>
}

/**
 * A pin store: `file` keeps the pins across restarts (and lets another process approve);
 * without it they live in memory for the life of the process.
 * @throws PinsFileError when `file` exists and is not a valid pin file.
 */
export function pinStore(options: { readonly file?: string }): LocalPinStore {
  const file = options?.file
  if (file !== undefined && (typeof file !== 'string' || file === '')) {
    throw new TypeError('pinStore: file must be a non-empty path')
  }
  let memory: Pins | undefined
  const read = (): Pins | undefined => (file === undefined ? memory : readPins(file))
  const write = (pins: Pins): void => {
    if (file === undefined) memory = pins
    else writePins(file, pins)
  }
  read()

  return Object.freeze({
    judge(listed: readonly UpstreamTool[]): PinJudgment {
      const tools = named(listed)
      const current = digests(tools)
      let pinned: Pins | undefined
      try {
        pinned = read()
      } catch (error) {
        if (!(error instanceof PinsFileError)) throw error
        // Fail closed: a pin file that became unreadable approves nothing.
        const drifted = [...current.keys()].map((name) => ({ name, reason: 'changed' as const }))
        return {
          approved: [],
          drifted,
          namesChanged: true,
          firstSight: false,
          error: PINS_FILE_ERROR,
        }
      }
      if (pinned === undefined) {
        write({ tools: current })
        return { approved: [...tools], drifted: [], namesChanged: false, firstSight: true }
      }
      return judgeAgainst(pinned.tools, tools, current)
    },
    approve(listed: readonly UpstreamTool[], names?: readonly string[]): void {
      const current = digests(named(listed))
      if (names === undefined) {
        write({ tools: current })
        return
      }
      const next = new Map(read()?.tools ?? [])
      for (const name of names) {
        const digest = current.get(name)
        if (digest !== undefined) next.set(name, digest)
        else if (next.has(name)) next.delete(name)
        else
          throw new PinsFileError(`no tool of that name is listed or pinned (${name.length} chars)`)
      }
      write({ tools: next })
    },
  })
}

/** Drift of every listed, named tool against the pins `pinned` (name → digest). */
export function judgeAgainst(
  pinned: ReadonlyMap<string, string>,
  tools: readonly UpstreamTool[],
  current: ReadonlyMap<string, string> = pinDigests(tools),
): PinJudgment {
  const approved: UpstreamTool[] = []
  const drifted: { name: string; reason: DriftReason }[] = []
  const seen = new Set<string>()
  for (const tool of named(tools)) {
    const name = tool.name
    const digest = current.get(name)
    const pin = pinned.get(name)
    if (pin === undefined) {
      if (!seen.has(name)) drifted.push({ name, reason: 'new' })
    } else if (pin !== digest) {
      if (!seen.has(name)) drifted.push({ name, reason: 'changed' })
    } else approved.push(tool)
    seen.add(name)
  }
  for (const name of pinned.keys()) {
    if (!current.has(name)) drifted.push({ name, reason: 'removed' })
  }
  const namesChanged = namesDigest(current.keys()) !== namesDigest(pinned.keys())
  return { approved, drifted, namesChanged, firstSight: false }
}

/** The pin of each listed tool with a string name (name → sha-256 hex), as the stores keep them. */
export function pinDigests(tools: readonly UpstreamTool[]): Map<string, string> {
  return digests(named(tools))
}

/**
 * The canonical JSON of a value: object keys sorted by code unit at every depth, no spacing,
 * `JSON.stringify`'s escaping. Two values that differ only in key order have the same text.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** The pin of one tool: sha-256 (hex) of the canonical JSON of every field it has. */
export function toolDigest(tool: UpstreamTool): string {
  return sha256(canonicalJson(tool))
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

// A tool without a string name cannot be pinned, approved or served.
function named(tools: readonly UpstreamTool[]): UpstreamTool[] {
  return tools.filter((tool) => typeof (tool as { name?: unknown }).name === 'string')
}

// Two tools listed under one name pin as one digest of both definitions, in list order.
function digests(tools: readonly UpstreamTool[]): Map<string, string> {
  const byName = new Map<string, string[]>()
  for (const tool of tools) {
    const list = byName.get(tool.name) ?? []
    list.push(canonicalJson(tool))
    byName.set(tool.name, list)
  }
  const out = new Map<string, string>()
  for (const [name, list] of byName)
    out.set(name, sha256(list.length === 1 ? list[0]! : `[${list.join(',')}]`))
  return out
}

/** sha-256 hex of the sorted names' canonical JSON: the pin of the set of names. */
export function namesDigest(names: Iterable<string>): string {
  return sha256(canonicalJson([...names].sort()))
}
