// Properties of the envelope: any single-character change of a handle is refused, and the
// refusal is the one frozen object. The last test is a helper test: it builds the control
// through `buildSealedHandles` (src/sealed-handles.ts, not exported from the package root)
// with the MAC check removed, to show that the check is what stops a forged state.
import { randomBytes } from 'node:crypto'
import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { SEALED_HANDLE_REFUSED, sealedHandles } from '../src/index.js'
import { buildSealedHandles } from '../src/sealed-handles.js'
import { ALL, group, target, team } from './fixtures/routes.js'

const keys = [{ id: 'k1', secret: randomBytes(32) }]
const handles = sealedHandles({ keys })
const ARGS = { resource: 'documents', action: 'get', id: 'd-1' }
const seal = (state: string, h = handles) => {
  const r = h.seal({
    kind: 'requestState',
    state,
    principal: 'cred-1',
    route: team,
    target: target(team, group('documents', 'get')),
    arguments: ARGS,
  })
  if (!r.ok) throw new Error('seal failed')
  return r.handle
}
const context = {
  kind: 'requestState',
  principal: 'cred-1',
  route: team,
  permissions: ALL,
  call: { tool: 'knowledge.documents.get', arguments: ARGS },
} as const

const CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ \u00e9'

describe('sealedHandles (properties)', () => {
  test.prop([fc.string({ maxLength: 200 }), fc.nat(), fc.constantFrom(...CHARS)], { numRuns: 300 })(
    'refuses a handle with any single character changed',
    async (state, at, replacement) => {
      const handle = seal(state)
      const i = at % handle.length
      fc.pre(handle[i] !== replacement)
      const changed = handle.slice(0, i) + replacement + handle.slice(i + 1)
      expect(await handles.open(changed, context)).toBe(SEALED_HANDLE_REFUSED)
    },
  )

  test.prop([fc.string({ maxLength: 200 }), fc.nat(), fc.integer({ min: 1, max: 3 })], {
    numRuns: 200,
  })('refuses a handle with characters cut from or added to any position', async (state, at, n) => {
    const handle = seal(state)
    const i = at % handle.length
    expect(await handles.open(handle.slice(0, i) + handle.slice(i + n), context)).toBe(
      SEALED_HANDLE_REFUSED,
    )
    expect(await handles.open(handle.slice(0, i) + 'A'.repeat(n) + handle.slice(i), context)).toBe(
      SEALED_HANDLE_REFUSED,
    )
  })

  test.prop([fc.string({ maxLength: 500 })], { numRuns: 100 })(
    'gives back any state it sealed',
    async (state) => {
      expect(await handles.open(seal(state), context)).toMatchObject({ ok: true, state })
    },
  )
})

describe('buildSealedHandles (MAC check removed)', () => {
  // The forgery: take a genuine handle the attacker holds, rewrite the server's state inside
  // the payload (every binding left as it was), and keep the old MAC.
  function forge(handle: string, state: string): string {
    const [prefix, kid, payload, mac] = handle.split('.') as [string, string, string, string]
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
    body.s = state
    return [prefix, kid, Buffer.from(JSON.stringify(body)).toString('base64url'), mac].join('.')
  }

  it('lets a forged state through once the MAC check is removed, and refuses it with the check', async () => {
    const genuine = seal('{"step":1,"approved":false}')
    const forged = forge(genuine, '{"step":2,"approved":true}')
    expect(await handles.open(forged, context)).toBe(SEALED_HANDLE_REFUSED)
    const unchecked = buildSealedHandles({ keys }, () => true)
    expect(await unchecked.open(forged, context)).toMatchObject({
      ok: true,
      state: '{"step":2,"approved":true}',
    })
  })
})

describe('sealedHandles (the MAC’s spare bits)', () => {
  it('refuses every other spelling of the last MAC character, including those decoding to the same bytes', async () => {
    const handle = seal('state')
    const last = handle.at(-1) as string
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    for (const c of alphabet) {
      if (c === last) continue
      expect(await handles.open(handle.slice(0, -1) + c, context)).toBe(SEALED_HANDLE_REFUSED)
    }
  })
})
