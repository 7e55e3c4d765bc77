// Test support (not a test file): minting and redeeming continuations as a raw client does.
import { type RawResponse, type RawSession, resultJson } from './raw-client.js'

/** The continuation token a heavy result carries; fails loudly when it carries none. */
export const tokenOf = (res: RawResponse): string => {
  const body = resultJson(res) as { continuation?: { token: string } }
  if (body.continuation === undefined) throw new Error(`no continuation: ${res.text.slice(0, 200)}`)
  return body.continuation.token
}

/** Mints through the group dispatcher: a document over the 64 KiB threshold. */
export const mintGroup = async (s: RawSession): Promise<string> =>
  tokenOf(
    await s.call('knowledge', {
      projectId: 'atlas',
      resource: 'documents',
      action: 'get',
      id: 'atlas-handbook',
    }),
  )

/** Redeems a token with `continuation.fetch`. */
export const fetchToken = (s: RawSession, token: string): Promise<RawResponse> =>
  s.call('continuation.fetch', { token })
