import { type AdmissionError, isAdmissionError } from '@tollgate/json-budget'
import type { AdmitCall } from './body-admission.js'
import type { BodyPolicy } from './body-options.js'
import { createBodyScanner, decodeBody, decodeText } from './body-scanner.js'
import { type BodyStore, createBodyStore } from './body-store.js'
import { admissionError } from './codes.js'
import { type BodyEncoding, createInflater, type Inflater } from './inflate.js'
import { openPrincipalShare, type PrincipalShare } from './principal-shares.js'
import { type BodySource, readSource, type SourceRead } from './read-source.js'
import { collectDeadChunks } from './young-collection.js'

/** An admitted body. */
export interface AdmitSuccess {
  readonly ok: true
  /** The parsed value (`JSON.parse` of the validated text), or `undefined` for an empty body. */
  readonly value: unknown
  /** Body bytes after inflation (what the preflight scanned). */
  readonly bytes: number
  /** Bytes received on the wire (equal to `bytes` without `Content-Encoding`). */
  readonly wireBytes: number
  /** Nodes and depth counted by the preflight. */
  readonly nodes: number
  readonly depth: number
  /** The admitted bytes, when `keepRaw` is set. */
  readonly raw?: Buffer
  /** Set by the request adapters when the body was passed through unread (`value` is then `undefined`). */
  readonly skipped?: SkipReason
}

/**
 * Why a request adapter passed a request through unread: a method in `passMethods`, no body
 * at all, or a media type outside `types` with `otherTypes: 'pass'`.
 */
export type SkipReason = 'method' | 'no-body' | 'media-type'

/** The result a request adapter answers with when it passes a request through unread. */
export function skippedResult(reason: SkipReason): AdmitSuccess {
  return { ok: true, value: undefined, bytes: 0, wireBytes: 0, nodes: 0, depth: 0, skipped: reason }
}

/** A refused body; nothing of it is kept. */
export interface AdmitFailure {
  readonly ok: false
  readonly error: AdmissionError
}

/** The outcome of an admission (`BodyAdmission.admit`): never a rejection for anything the client can cause. */
export type AdmitResult = AdmitSuccess | AdmitFailure

/**
 * The framework-free core of `BodyAdmission.admit`: admits a JSON body from a byte stream
 * under a resolved policy. It counts the bytes actually received (never trusting the declared
 * length, but refusing a body that ends short of it or runs past it), inflates the decided
 * encoding with the cap counted on inflated bytes plus a ratio cap, runs the incremental
 * preflight on each chunk so a bad body is refused while it is still arriving, enforces the
 * total and idle deadlines and the minimum data rate, reserves the bytes it actually holds in
 * the in-flight budget and its principal's share (a declared length is never reserved before
 * bytes arrive; both are released before it settles), and decodes once at the end.
 * @internal
 */
export async function readBody(
  source: BodySource,
  o: BodyPolicy,
  decision: {
    readonly declaredLength: number | undefined
    readonly encoding: BodyEncoding | undefined
  },
  call: AdmitCall,
): Promise<AdmitResult> {
  const budget = o.budget
  let reserved = 0
  let share: PrincipalShare | undefined
  let read: SourceRead | undefined
  let inflater: Inflater | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let onAbort: (() => void) | undefined
  let store: BodyStore | undefined
  let arming: PendingArm | undefined
  // Set once the bytes are handed on (keepRaw): then they are the caller's and stay intact.
  let keep = false
  try {
    const encoding = decision.encoding
    const declared = decision.declaredLength
    // A call's own cap (a route's per-operation cap) may only lower the control's.
    const maxBytes =
      call.maxBytes !== undefined && call.maxBytes < o.maxBytes ? call.maxBytes : o.maxBytes
    if (declared !== undefined && declared > maxBytes) {
      throw admissionError('ERR_BODY_TOO_LARGE', { limit: maxBytes, observed: declared })
    }
    if (call.signal?.aborted) throw admissionError('ERR_BODY_ABORTED')
    if (call.principal !== undefined) {
      share = openPrincipalShare(budget, call.principal, o, call.pool)
    }
    // The budget holds bytes, not promises: `reserved` is what this body actually holds (the
    // bytes received, or inflated, so far; the pre-sized buffer once it exists). A declared
    // length reserves nothing, so an idle socket declaring 64 MiB holds nothing.
    const reserve = (total: number) => {
      if (total <= reserved) return
      share?.check(total)
      if (!budget.tryAcquire(total - reserved)) {
        throw admissionError('ERR_ADMISSION_BUSY', { limit: budget.maxBytes })
      }
      share?.commit(total)
      reserved = total
    }

    const preflight = createBodyScanner(o)
    // With a trustworthy upper bound (a declared length, no encoding) the whole declared length
    // is reserved once half of it has arrived, and no sooner: a liar who declares 64 MiB and
    // trickles bytes holds what it sent, at most doubled. The bytes themselves are held by the
    // store, which never holds more than was received (see body-store.ts).
    const bounded = declared !== undefined && encoding === undefined
    let presized = false
    let chunkCount = 0
    const held = createBodyStore(bounded ? (declared as number) : maxBytes)
    store = held
    let bytes = 0
    let wireBytes = 0
    let collectAt = COLLECT_EVERY

    const accept = (chunk: Uint8Array) => {
      const next = bytes + chunk.byteLength
      if (next > maxBytes) {
        throw admissionError('ERR_BODY_TOO_LARGE', { limit: maxBytes, observed: next })
      }
      if (encoding !== undefined && next > wireBytes * o.maxInflationRatio) {
        throw admissionError('ERR_BODY_INFLATION_RATIO', {
          limit: o.maxInflationRatio,
          observed: Math.ceil(next / Math.max(1, wireBytes)),
        })
      }
      if (bounded && next > (declared as number)) {
        throw admissionError('ERR_BODY_INVALID_LENGTH', { observed: next })
      }
      if (!presized && bounded && chunkCount > 0 && next * 2 >= (declared as number)) {
        presized = true
      }
      reserve(presized ? (declared as number) : next)
      preflight.push(chunk)
      held.push(chunk)
      chunkCount++
      bytes = next
      if (next >= collectAt) {
        // Past the spill point every chunk is copied and dead at once: have them collected
        // every few MiB, so the allocator reuses their memory for the chunks still to come
        // instead of growing by the whole body (see young-collection.ts).
        collectAt = next + COLLECT_EVERY
        if (held.spilled) collectDeadChunks()
      }
    }
    if (encoding !== undefined) inflater = createInflater(encoding, accept)
    const onWire = (chunk: Uint8Array): void | Promise<void> => {
      wireBytes += chunk.byteLength
      if (wireBytes > maxBytes) {
        throw admissionError('ERR_BODY_TOO_LARGE', { limit: maxBytes, observed: wireBytes })
      }
      lastChunkAt = Date.now()
      if (inflater === undefined) return accept(chunk)
      return inflater.write(chunk)
    }

    // One timer serves every deadline: it wakes at the nearest one, and a chunk only records
    // its time and count (no timer work per chunk, and at most one timer per request). It is
    // armed lazily (see `armDeadlines`): a body that is already complete when the event loop
    // next reaches its check phase, as a small body sent with its head is, never creates one.
    const startedAt = Date.now()
    let lastChunkAt = startedAt
    const current = readSource(source, onWire)
    read = current
    const minRate = o.minBytesPerSecond
    const check = () => {
      const now = Date.now()
      const elapsed = now - startedAt
      const total = o.timeoutMs - elapsed
      const idle = o.idleTimeoutMs - (now - lastChunkAt)
      // The minimum data rate, once the grace period is over: the body must have averaged
      // minBytesPerSecond since admission began. `rate` is how long the bytes received so far
      // keep that average (never before the grace period ends).
      const rate =
        minRate === false
          ? Number.POSITIVE_INFINITY
          : Math.max(o.minRateGraceMs, Math.floor((wireBytes * 1000) / minRate)) - elapsed
      if (total <= 0) {
        current.stop(admissionError('ERR_BODY_TIMEOUT', { limit: o.timeoutMs }))
      } else if (idle <= 0) {
        current.stop(
          admissionError('ERR_BODY_TIMEOUT', {
            limit: o.idleTimeoutMs,
            option: 'idleTimeoutMs',
          }),
        )
      } else if (minRate !== false && rate < 0) {
        current.stop(
          admissionError('ERR_BODY_TIMEOUT', {
            limit: minRate,
            observed: Math.floor((wireBytes * 1000) / Math.max(1, elapsed)),
            option: 'minBytesPerSecond',
          }),
        )
      } else {
        timer = setTimeout(check, Math.min(total, idle, Math.max(1, rate + 1)))
      }
    }
    // check() measures every deadline from startedAt: it stops a read whose deadline passed
    // while the loop was busy, and otherwise arms the timer at the nearest one.
    arming = armDeadlines(check)
    if (call.signal) {
      onAbort = () => current.stop(admissionError('ERR_BODY_ABORTED'))
      call.signal.addEventListener('abort', onAbort, { once: true })
    }
    await current.done
    if (inflater !== undefined) await inflater.end()
    if (declared !== undefined && wireBytes !== declared) {
      const code = wireBytes < declared ? 'ERR_BODY_INCOMPLETE' : 'ERR_BODY_INVALID_LENGTH'
      throw admissionError(code, { observed: wireBytes })
    }
    if (bytes === 0) {
      return { ok: true, value: undefined, bytes: 0, wireBytes, nodes: 0, depth: 0 }
    }
    const counts = preflight.end()
    if (held.spilled) collectDeadChunks()
    let buffer: Buffer | undefined = held.take()
    const raw = o.keepRaw || call.keepRaw === true ? buffer : undefined
    keep = raw !== undefined
    const text = decodeText(buffer)
    // Nothing but the store keeps the bytes alive now. A body past the store's spill point
    // gives its pages back here, before JSON.parse builds the value, so its bytes, text and
    // value are never all resident at once; a smaller one is left to the collector.
    buffer = undefined
    if (!keep) held.release()
    const value = decodeBody(text, o)
    const result: AdmitSuccess = {
      ok: true,
      value,
      bytes,
      wireBytes,
      nodes: counts.nodes,
      depth: counts.depth,
    }
    return raw !== undefined ? { ...result, raw } : result
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    read?.stop(error)
    return { ok: false, error }
  } finally {
    if (arming !== undefined) disarm(arming)
    if (timer !== undefined) clearTimeout(timer)
    if (onAbort !== undefined) call.signal?.removeEventListener('abort', onAbort)
    inflater?.destroy()
    budget.release(reserved)
    share?.close()
    // A refused body's pages go back now too, not at the next collection.
    if (!keep) store?.release()
  }
}

/** Bytes between two collections of a spilled body's dead chunks: 4 MiB. */
const COLLECT_EVERY = 4 * 1024 * 1024

// Deadline timers waiting to be armed, and whether the check-phase callback that arms them is
// scheduled. A timer per request (insert, clear, and the libuv timer toggled) measured about
// a microsecond, as much as the preflight of a 1 KB body; one shared `setImmediate` per event
// loop iteration arms the few that are still reading by then and skips the rest.
interface PendingArm {
  arm: (() => void) | undefined
}
const pendingArms: PendingArm[] = []
let armScheduled = false

function armDeadlines(arm: () => void): PendingArm {
  const pending: PendingArm = { arm }
  pendingArms.push(pending)
  if (!armScheduled) {
    armScheduled = true
    setImmediate(armPending)
  }
  return pending
}

/**
 * Forgets a settled admission's arm, so the queue never keeps a body's state alive, and a
 * loop that admits bodies one after another without yielding to the event loop (in-memory
 * sources) does not grow the queue: the last entry, its own, is taken off at once.
 */
function disarm(pending: PendingArm): void {
  pending.arm = undefined
  if (pendingArms[pendingArms.length - 1] === pending) pendingArms.pop()
}

function armPending(): void {
  armScheduled = false
  const arms = pendingArms.splice(0)
  for (const pending of arms) pending.arm?.()
}
