// The options of the request-state control (`requestStateSeal`), declared once: the README's
// table, the config's `requestState` section and the checks at construction come from here.
import type { SealingKey } from '@tollgate/continuation'
import {
  defineOptions,
  functionOption,
  integerOption,
  type OptionsOf,
  option,
} from '@tollgate/json-budget'

/** Longest `maxHandleBytes` accepted: a handle rides in every retry, under the body cap. */
export const MAX_HANDLE_BYTES_CEILING = 1024 * 1024

/** The options of {@link requestStateSeal}, declared once; `keys` is required. */
export const REQUEST_STATE_OPTIONS = defineOptions('requestStateSeal', {
  keys: option<readonly SealingKey[] | undefined>({
    default: undefined,
    check: (value, name) => {
      if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of keys`)
    },
    shown: 'required',
    doc: 'the key set, newest first: the first key signs, every key verifies (1–16 `{ id, secret }`, secrets of at least 32 bytes)',
  }),
  ttlMs: option({
    default: 10 * 60 * 1000,
    check: integerOption(),
    shown: '600000 (10 minutes)',
    doc: 'how long a sealed `requestState` opens, in milliseconds; past it the retry is refused `ERR_REQUEST_STATE_EXPIRED`',
  }),
  maxHandleBytes: option({
    default: 16 * 1024,
    check: (value, name) => {
      integerOption()(value, name)
      if ((value as number) > MAX_HANDLE_BYTES_CEILING) {
        throw new TypeError(`${name} may not exceed ${MAX_HANDLE_BYTES_CEILING}`)
      }
    },
    shown: '16 KiB',
    doc: 'longest sealed handle (ASCII, so bytes = characters): an upstream state that would seal longer is refused `ERR_UPSTREAM_STATE_TOO_LARGE`, a longer handle from a caller `ERR_REQUEST_STATE_TOO_LARGE`, before any decoding; at most 1 MiB',
  }),
  upstreamId: option({
    default: '',
    check: (value, name) => {
      if (typeof value !== 'string' || value.length > 256) {
        throw new TypeError(`${name} must be a string of at most 256 characters`)
      }
    },
    shown: "`''` (the gateway sets it)",
    doc: 'the identity of the upstream the handles are bound to (a configured name, or a digest of the command line or URL): a handle sealed in front of another upstream is refused `ERR_REQUEST_STATE_INVALID`',
  }),
  now: option<() => number>({
    default: Date.now,
    check: functionOption,
    shown: '`Date.now`',
    doc: 'the clock, in milliseconds since the epoch',
  }),
})

/** Options of {@link requestStateSeal} (see {@link REQUEST_STATE_OPTIONS}); `keys` is required. */
export type RequestStateOptions = OptionsOf<typeof REQUEST_STATE_OPTIONS.rows> & {
  readonly keys: readonly SealingKey[]
}
