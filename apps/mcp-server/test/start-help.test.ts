// The start-up help a person reads on stderr after `listening`, live: every printed command is
// taken from the real server's stderr and performed (the curl line through fetch with its own
// headers and body, the mcpServers entry by spawning it).
import { spawn } from 'node:child_process'
import { initializeRequest } from '@tollgate/test-kit/mcp-initialize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALICE, type LiveServer, MAIN, startServer } from './helpers/server.js'

let demo: LiveServer

beforeAll(async () => {
  demo = await startServer([], false)
})
afterAll(async () => {
  await demo.stop()
})

/** The human-readable help: every stderr line that is not a JSON object. */
const helpOf = async (server: LiveServer): Promise<string> => {
  await server.audit.waitFor((e) => e.event === 'listening')
  // The help is written right after the listening line; wait until its last block arrived.
  for (let i = 0; i < 100 && !server.audit.raw.some((l) => l.trim() === '}'); i++) {
    await new Promise((r) => setTimeout(r, 50))
  }
  return server.audit.raw.filter((l) => !l.startsWith('{"level"')).join('\n')
}

/** Splits a POSIX shell line of bare words and single-quoted words. */
const shellWords = (line: string): string[] =>
  [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replaceAll("'\\''", "'") : m[2]!,
  )

/** A printed curl line's URL, `-H` headers and `-d` body. */
const curlParts = (line: string) => {
  const words = shellWords(line.trim())
  const headers: Record<string, string> = {}
  words.forEach((w, i) => {
    if (words[i - 1] === '-H') {
      const at = w.indexOf(':')
      headers[w.slice(0, at)] = w.slice(at + 1).trim()
    }
  })
  return {
    url: words.find((w) => w.startsWith('http://'))!,
    headers,
    body: words[words.indexOf('-d') + 1]!,
  }
}

describe('start-up help', () => {
  it('prints every route URL and the demo tokens after listening', async () => {
    const help = await helpOf(demo)
    const tokens = (
      (await demo.audit.waitFor((e) => e.event === 'demo_credentials')).credentials as {
        id: string
        token: string
      }[]
    ).map((c) => `${c.id}: ${c.token}`)
    const firstWords = help.split('\n').map((l) => l.trim().split(' ')[0])
    for (const path of ['/mcp', '/mcp/team', '/mcp/public']) {
      expect(firstWords).toContain(demo.url(path))
    }
    expect(help).toMatch(/\/mcp\/public {2}\(also anonymous/)
    for (const line of tokens) expect(help).toContain(line)
  })

  it('prints a curl line that initializes a session when performed with its own URL, headers and body', async () => {
    const line = (await helpOf(demo)).split('\n').find((l) => l.trim().startsWith('curl '))!
    const { url, headers, body } = curlParts(line)
    expect(headers.Authorization).toMatch(/^Bearer tg_/)
    expect(JSON.parse(body).method).toBe('initialize')
    const res = await fetch(url, { method: 'POST', headers, body })
    expect(res.status).toBe(200)
    expect(res.headers.get('mcp-session-id')).toBeTruthy()
    expect(JSON.parse(await res.text()).result.serverInfo.name).toBe('tollgate-reference')
  })

  it('prints a 2026-07-28 server/discover and tools/call that are served without a session when performed with their own URL, headers and body', async () => {
    const lines = (await helpOf(demo))
      .split('\n')
      .filter((l) => l.trim().startsWith('curl ') && l.includes('MCP-Protocol-Version: 2026-07-28'))
    expect(lines).toHaveLength(2)
    const answers = []
    for (const line of lines) {
      const { url, headers, body } = curlParts(line)
      expect(headers.Authorization).toMatch(/^Bearer tg_/)
      const res = await fetch(url, { method: 'POST', headers, body })
      expect(res.status).toBe(200)
      expect(res.headers.get('mcp-session-id')).toBeNull()
      answers.push({ method: JSON.parse(body).method, result: JSON.parse(await res.text()).result })
    }
    expect(answers[0]!.method).toBe('server/discover')
    expect(answers[0]!.result.supportedVersions).toContain('2026-07-28')
    expect(answers[1]!.method).toBe('tools/call')
    expect(JSON.parse(answers[1]!.result.content[0].text)).toHaveProperty('projects')
  })

  it('prints an Inspector command for the running Node and an mcpServers entry that starts a working stdio server', async () => {
    const help = await helpOf(demo)
    const inspector = help
      .split('\n')
      .find((l) => l.trim().startsWith('npx -y @modelcontextprotocol/inspector@'))!
    const major = Number(process.versions.node.split('.')[0])
    if (major >= 23) expect(inspector).toContain('inspector@2.12.0 --cli http://')
    if (major < 22) {
      expect(inspector).toContain(`inspector@0.15.0 --cli ${process.execPath} ${MAIN} --stdio`)
    }
    const start = help.indexOf('{\n')
    const entry = JSON.parse(help.slice(start, help.lastIndexOf('}') + 1)) as {
      mcpServers: { tollgate: { command: string; args: string[] } }
    }
    const { command, args } = entry.mcpServers.tollgate
    expect(args).toEqual([MAIN, '--stdio'])
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] })
    try {
      const answer = new Promise<string>((resolve) => {
        child.stdout.setEncoding('utf8')
        child.stdout.once('data', (chunk: string) => resolve(chunk))
      })
      child.stdin.write(`${JSON.stringify(initializeRequest(1))}\n`)
      expect(JSON.parse((await answer).split('\n')[0]!).result.serverInfo.name).toBe(
        'tollgate-reference',
      )
    } finally {
      child.kill('SIGTERM')
    }
  })

  it('prints no token with a config file: the curl line names $TOLLGATE_TOKEN', async () => {
    const configured = await startServer()
    try {
      const help = await helpOf(configured)
      expect(help).toContain('Authorization: Bearer $TOLLGATE_TOKEN')
      expect(help).not.toContain(ALICE)
      expect(help).toContain('"--config"')
    } finally {
      await configured.stop()
    }
  })
})
