import type { AdmissionCode } from '@tollgate/json-budget'

/**
 * Why the decorator refused a request, as a stable code for an audit line:
 * - `off_surface`: the tool name is not on the route's surface (mounted elsewhere or nowhere:
 *   the decorator cannot tell and does not look);
 * - `unpublished`: on the surface (or no surface given) but without a published schema;
 * - `malformed`: `params` is not an object or its `name` is not a string;
 * - `bounds`: the arguments passed a structural bound (`code` says which);
 * - `schema`: the published schema refused the arguments (`keyword` says which);
 * - `reused_id`: the request reused the id of a request still in flight on this connection.
 */
export type RefusalReason =
  | 'off_surface'
  | 'unpublished'
  | 'malformed'
  | 'bounds'
  | 'schema'
  | 'reused_id'

/**
 * What {@link InputValidationOptions.onRefusal} receives for each refused request. It holds no
 * byte of the caller's beyond what the refusal itself answered: a tool name appears only when
 * it is a name the registry publishes (a server name); any other name is reported by its length.
 */
export interface RefusalEvent {
  /** The refusal's reason code. */
  readonly reason: RefusalReason
  /**
   * The JSON-RPC method refused: `tools/call`, or for `reused_id` the caller's method, as a
   * name is shown (verbatim when at most 64 printable ASCII characters, else `<N chars>`).
   */
  readonly method: string
  /**
   * The tool, when it is one the registry publishes and the route serves (`bounds`, `schema`);
   * else `undefined`.
   */
  readonly tool: string | undefined
  /** Length in UTF-16 code units of a tool name that was a string; else `undefined`. */
  readonly nameLength: number | undefined
  /** For `bounds`: the admission code (`ERR_JSON_TOO_DEEP`, ...). */
  readonly code: AdmissionCode | undefined
  /** For `schema`: the failing keyword (`unevaluatedProperties`, `pattern`, ...). */
  readonly keyword: string | undefined
  /**
   * For `bounds` and `schema`: the bounded JSON Pointer the refusal named (keys over 64
   * characters or with control characters as `<N chars>`, at most 320 bytes).
   */
  readonly pointer: string | undefined
  /**
   * `undefined` for a refusal reported as it happens. For the closing event of a repeat window
   * (see `refusalWindowMs`): how many more refusals of this kind (reason, method, tool, code,
   * keyword) came within the window after the one reported first; `pointer` and `nameLength`
   * are then `undefined`, since the repeats may differ in them.
   */
  readonly repeated: number | undefined
}

/**
 * The refusal hook's signature. It must not throw; an error it throws goes to `onerror`. To
 * count refusals, count 1 for an event without `repeated` and `repeated` for one with it.
 */
export type RefusalHook = (event: RefusalEvent) => void
