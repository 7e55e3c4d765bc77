import { preflight } from '@tollgate/lexical-preflight'

/**
 * Reads a Streamable HTTP answer sent as an event stream until the response to request `id`
 * arrives (then stops reading), passing the notifications before it to `onNotification` and the
 * upstream's requests to its client (those with a `method` and an `id`) to `onRequest`. The
 * stream is read as it comes, each event's data under `maxBytes` and the whole stream under
 * `maxBytes` too; each event is preflighted before it is parsed.
 * @returns the response message (or `undefined` when the stream ended without it).
 * @throws an error with `code: 'ERR_UPSTREAM_LINE_TOO_LARGE'` past the cap; an `AdmissionError`
 *   on an event that is not JSON within the limits.
 */
export async function readSseMessages(
  res: Response,
  maxBytes: number,
  id: number,
  onNotification: (message: { method?: unknown; params?: unknown }) => void,
  onRequest: (message: {
    method: string
    id: string | number
    params?: unknown
  }) => void = () => {},
): Promise<unknown> {
  if (res.body === null) return undefined
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  let total = 0
  let data: string[] = []
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return undefined
      total += Buffer.byteLength(value)
      if (total > maxBytes) {
        throw Object.assign(new Error('upstream answer too large'), {
          code: 'ERR_UPSTREAM_LINE_TOO_LARGE',
        })
      }
      // Only the new text is searched for a line end, so one long event costs linear time.
      const from = buffer.length
      buffer += value
      let nl = buffer.indexOf('\n', from)
      while (nl !== -1) {
        const line = buffer.slice(0, nl).replace(/\r$/, '')
        buffer = buffer.slice(nl + 1)
        if (line === '') {
          if (data.length > 0) {
            const text = data.join('\n')
            data = []
            preflight(Buffer.from(text, 'utf8'), { maxBytes })
            const message = JSON.parse(text) as { id?: unknown; method?: unknown; params?: unknown }
            if (message.id === id && message.method === undefined) return message
            if (message.method !== undefined && message.id === undefined) onNotification(message)
            else if (
              typeof message.method === 'string' &&
              (typeof message.id === 'string' || typeof message.id === 'number')
            )
              onRequest(message as { method: string; id: string | number; params?: unknown })
          }
        } else if (line.startsWith('data:'))
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
        nl = buffer.indexOf('\n')
      }
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}
