// Admits a bare byte stream through a new control, the transport facts (a declared length, an
// encoding header) given as a request head carries them, for the tests of the core's reading.
import {
  type AdmitResult,
  type BodyAdmission,
  type BodyAdmissionOptions,
  type BodySource,
  bodyAdmission,
} from '../../src/index.js'

/** What the transport says about a stream besides its bytes. */
export interface StreamFacts {
  readonly declaredLength?: number
  readonly contentEncoding?: string
  readonly signal?: AbortSignal
  readonly principal?: string
}

/** `bodyAdmission(options)` (or a control already built) admitting `source` as a POST of an accepted type with `facts`. */
export function admitStream(
  source: BodySource,
  options?: BodyAdmissionOptions | BodyAdmission,
  facts: StreamFacts = {},
): Promise<AdmitResult> {
  const body = isControl(options) ? options : bodyAdmission(options)
  const decision = body.classify({
    method: 'POST',
    contentType: undefined,
    contentLength: facts.declaredLength === undefined ? undefined : String(facts.declaredLength),
    contentEncoding: facts.contentEncoding,
    hasBody: true,
    typeAccepted: true,
  })
  return body.admit(source, decision, { signal: facts.signal, principal: facts.principal })
}

function isControl(
  value: BodyAdmissionOptions | BodyAdmission | undefined,
): value is BodyAdmission {
  return typeof (value as Partial<BodyAdmission> | undefined)?.admit === 'function'
}
