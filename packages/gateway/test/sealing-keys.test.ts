import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GatewayConfigError, loadGatewayConfig, parseGatewayConfig } from '../src/config.js'
import { generatedSealingKeys } from '../src/sealing-keys.js'

const SECRET = randomBytes(32).toString('base64url')
const OTHER = randomBytes(48).toString('base64url')

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-keys-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

function issuesOf(value: unknown): { path: string; message: string }[] {
  try {
    parseGatewayConfig(value, dir)
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError)
    return [...(error as GatewayConfigError).issues]
  }
  return []
}

describe('parseGatewayConfig (sealingKeys)', () => {
  it('reads keys given inline and by file, newest first, showing ids only', () => {
    writeFileSync(join(dir, 'old.key'), `${OTHER}\n`)
    const config = parseGatewayConfig(
      {
        sealingKeys: [
          { id: 'k2', secret: SECRET },
          { id: 'k1', secretFile: 'old.key' },
        ],
        requestState: { ttlMs: 120_000 },
      },
      dir,
    )
    const keys = config.sealingKeys
    expect(keys?.ids).toEqual(['k2', 'k1'])
    expect(keys?.generated).toBe(false)
    expect(
      keys?.keys().map((k) => ({ id: k.id, secret: Buffer.from(k.secret).toString('base64url') })),
    ).toEqual([
      { id: 'k2', secret: SECRET },
      { id: 'k1', secret: OTHER },
    ])
    expect(config.requestState).toEqual({ ttlMs: 120_000 })
    for (const shown of [JSON.stringify(config), inspect(config, { depth: 10 })]) {
      expect(shown).not.toContain(SECRET)
      expect(shown).not.toContain(OTHER)
    }
  })

  it('names the path of a non-canonical, short, unreadable or repeated key, never its secret', () => {
    // 43 characters carry 258 bits for 32 bytes: a last character with either low bit set is a
    // second spelling of some key, refused.
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const last = ALPHABET.indexOf(SECRET.at(-1) as string)
    const short = `${SECRET.slice(0, -1)}${ALPHABET[(last & ~3) | 1]}`
    writeFileSync(join(dir, 'short.key'), randomBytes(16).toString('base64url'))
    const issues = issuesOf({
      sealingKeys: [
        { id: 'a', secret: short },
        { id: 'b', secretFile: 'missing.key' },
        { id: 'c', secretFile: 'short.key' },
        { id: 'a', secret: SECRET },
      ],
    })
    expect(issues.map((i) => i.path)).toEqual([
      'sealingKeys[0].secret',
      'sealingKeys[1].secretFile',
      'sealingKeys[2].secretFile',
      'sealingKeys[3].id',
    ])
    expect(issues[0]?.message).toContain('canonical')
    expect(issues[1]?.message).toContain('ENOENT')
    expect(issues[2]?.message).toContain('16 bytes')
    expect(JSON.stringify(issues)).not.toContain(short)
  })

  it('refuses by the published schema a key with neither or both secrets, a bad id or a short ttl', () => {
    const paths = (value: unknown) => issuesOf(value).map((i) => i.path)
    expect(paths({ sealingKeys: [{ id: 'a' }] })).toContain('sealingKeys[0]')
    expect(paths({ sealingKeys: [{ id: 'a', secret: SECRET, secretFile: 'x' }] })).toContain(
      'sealingKeys[0]',
    )
    expect(paths({ sealingKeys: [{ id: 'a b', secret: SECRET }] })).toContain('sealingKeys[0].id')
    expect(paths({ sealingKeys: [{ id: 'a', secret: 'tooShort' }] })).toContain(
      'sealingKeys[0].secret',
    )
    expect(paths({ sealingKeys: [] })).toContain('sealingKeys')
    expect(paths({ requestState: { ttlMs: 10 } })).toContain('requestState.ttlMs')
    expect(paths({ requestState: { maxAge: 10 } })).toContain('requestState.maxAge')
  })

  it('reads a secretFile relative to the config file, wherever the gateway runs', () => {
    writeFileSync(join(dir, 'k.key'), SECRET)
    const file = join(dir, 'gateway.json')
    writeFileSync(file, JSON.stringify({ sealingKeys: [{ id: 'k', secretFile: 'k.key' }] }))
    expect(loadGatewayConfig(file).sealingKeys?.ids).toEqual(['k'])
  })
})

describe('generatedSealingKeys', () => {
  it('draws a different 32-byte key for each process start', () => {
    const a = generatedSealingKeys()
    const b = generatedSealingKeys()
    expect(a.generated).toBe(true)
    expect(a.ids[0]).toMatch(/^local-[0-9a-f]{8}$/)
    expect(a.keys()[0]?.secret.byteLength).toBe(32)
    expect(Buffer.from(a.keys()[0]!.secret).equals(Buffer.from(b.keys()[0]!.secret))).toBe(false)
  })
})
