// The anonymous pool of the gateway's session-era sessions, through the built CLI on real
// sockets: callers without a credential (each keyed by its address; here 127.0.0.2 … 127.0.0.7,
// every one a loopback address on Linux) together hold at most `--max-anonymous-sessions` of
// the process's `--max-sessions`, one address at most a quarter of the pool, so a credential
// still opens a session when every anonymous slot is taken. The control gives the pool the
// whole process: the same anonymous drive then fills it, and the credential is turned away
// with 503 ERR_SESSION_LIMIT.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hashBearerToken } from '../src/config.js'
import { MISBEHAVING, startCliPerTest } from './fixtures/run-gateway.js'

const startCli = startCliPerTest()
const TOKEN = 'anonymous-pool-credential-0123456789'
const ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7']

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
})

function configFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gw-anon-sessions-')), 'config.json')
  writeFileSync(
    file,
    JSON.stringify({
      credentials: [{ name: 'holder', tokenSha256: hashBearerToken(TOKEN) }],
      routes: [{ path: '/mcp', anonymous: true }],
    }),
  )
  return file
}

interface Opened {
  readonly status: number
  readonly code: string
  readonly limit: number | undefined
}

/** One `initialize` from `localAddress`, with the credential when `token` is set. */
function open(port: number, localAddress: string, token?: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          text += chunk
        })
        res.on('end', () => {
          const session = res.headers['mcp-session-id']
          let data: { code?: string; limit?: number } | undefined
          try {
            data = (JSON.parse(text) as { error?: { data?: typeof data } }).error?.data
          } catch {
            data = undefined
          }
          resolve({
            status: res.statusCode ?? 0,
            code: typeof session === 'string' ? 'opened' : (data?.code ?? 'none'),
            limit: data?.limit,
          })
        })
      },
    )
    req.on('error', reject)
    req.end(INITIALIZE)
  })
}

/** Three initializes from each anonymous address, one address after another. */
async function anonymousDrive(port: number): Promise<Opened[]> {
  const answers: Opened[] = []
  for (const address of ADDRESSES)
    for (let i = 0; i < 3; i++) answers.push(await open(port, address))
  return answers
}

const gateway = (pool: number) =>
  startCli([
    '--config',
    configFile(),
    '--max-sessions',
    '12',
    '--max-anonymous-sessions',
    String(pool),
    '--',
    process.execPath,
    MISBEHAVING,
  ])

describe('httpSessions: the anonymous pool through tollgate-gateway', () => {
  it('holds anonymous callers to the pool, one address to a quarter of it, and leaves the rest of the process to credentials', async () => {
    const g = await gateway(8)
    const answers = await anonymousDrive(g.port)
    expect(answers.filter((a) => a.code === 'opened')).toHaveLength(8)
    const refused = answers.filter((a) => a.code !== 'opened')
    expect(new Set(refused.map((a) => `${a.status} ${a.code}`))).toEqual(
      new Set(['429 ERR_SESSION_QUOTA']),
    )
    // Each address is held to 8 ÷ 4 = 2; once four addresses hold the pool, the rest get none.
    expect(new Set(refused.map((a) => a.limit))).toEqual(new Set([2, 8]))
    for (let i = 0; i < 4; i++) expect((await open(g.port, '127.0.0.2', TOKEN)).code).toBe('opened')
    expect(await open(g.port, '127.0.0.2', TOKEN)).toMatchObject({
      status: 503,
      code: 'ERR_SESSION_LIMIT',
    })
  }, 60_000)

  it('control: a pool as large as the process lets anonymous addresses fill it, and the credential is refused', async () => {
    const g = await gateway(12)
    const answers = await anonymousDrive(g.port)
    expect(answers.filter((a) => a.code === 'opened')).toHaveLength(12)
    expect(await open(g.port, '127.0.0.8', TOKEN)).toMatchObject({
      status: 503,
      code: 'ERR_SESSION_LIMIT',
    })
  }, 60_000)
})
