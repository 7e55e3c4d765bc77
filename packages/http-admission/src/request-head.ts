import { admissionError } from './codes.js'
import { parseContentLength } from './content-length.js'
import type { AdmitContext, SkipReason } from './core.js'
import { matchMediaType } from './media-type.js'
import type { ResolvedHttpAdmissionOptions } from './options.js'

/** The parts of a request head the policy looks at, whatever the framework. */
export interface RequestHead {
  readonly method: string | undefined
  readonly contentType: string | undefined | null
  readonly contentLength: string | readonly string[] | undefined | null
  readonly contentEncoding: string | undefined | null
  /** Whether the transport says a body follows (chunked, or a length was sent). */
  readonly hasBody: boolean
}

/**
 * Applies the head policy in order: pass-through methods, `Content-Length` syntax, no body,
 * media type and charset.
 * @returns a skip reason, or the context to admit the body with.
 * @throws AdmissionError `ERR_BODY_INVALID_LENGTH` or `ERR_BODY_MEDIA_TYPE`.
 */
export function classifyHead(
  head: RequestHead,
  o: ResolvedHttpAdmissionOptions,
): { skip: SkipReason } | { context: AdmitContext } {
  if (o.passMethods.includes((head.method ?? 'GET').toUpperCase())) return { skip: 'method' }
  const declaredLength = parseContentLength(head.contentLength)
  if (!head.hasBody || declaredLength === 0) return { skip: 'no-body' }
  if (matchMediaType(head.contentType, o.types) === 'other') {
    if (o.otherTypes === 'pass') return { skip: 'media-type' }
    throw admissionError('ERR_BODY_MEDIA_TYPE')
  }
  const context: { declaredLength?: number; contentEncoding?: string } = {}
  if (declaredLength !== undefined) context.declaredLength = declaredLength
  if (head.contentEncoding !== undefined && head.contentEncoding !== null) {
    context.contentEncoding = head.contentEncoding
  }
  return { context }
}
