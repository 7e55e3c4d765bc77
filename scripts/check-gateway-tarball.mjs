// The gateway as a stranger gets it: installed from the packed tarballs alone into an empty
// folder, started with `npx tollgate-gateway` in front of @modelcontextprotocol/server-everything
// (a stdio child), and asked over real HTTP on 127.0.0.1 by a raw client for a 2026-07-28
// `server/discover` and a 2025 `initialize`. A second gateway on the same port must fail with
// one line naming EADDRINUSE, the port and --port. npx runs with --offline: the bin comes
// from the folder, never from the registry.
import { spawn } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { join } from 'node:path'

const V2026 = '2026-07-28'
const DEADLINE_MS = 120_000

/** Runs `npx --offline tollgate-gateway …args` in `folder`, in its own process group. */
function gateway(folder, args) {
  const child = spawn('npx', ['--offline', 'tollgate-gateway', ...args], {
    cwd: folder,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  const out = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (c) => {
    out.stdout += c
  })
  child.stderr.setEncoding('utf8').on('data', (c) => {
    out.stderr += c
  })
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, out, exited }
}

function within(promise, what) {
  let timer
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no answer within ${DEADLINE_MS} ms`)),
      DEADLINE_MS,
    )
  })
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer))
}

/** POSTs `body` to /mcp; parses a JSON or a one-event SSE answer. */
async function post(port, body, headers = {}) {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  const data = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5))
        .join('')
    : text
  return {
    status: res.status,
    headers: res.headers,
    body: data === '' ? undefined : JSON.parse(data),
  }
}

function modern(port, id, method, params = {}) {
  const headers = { 'mcp-protocol-version': V2026, 'mcp-method': method }
  if (typeof params.name === 'string') headers['mcp-name'] = params.name
  const meta = {
    'io.modelcontextprotocol/protocolVersion': V2026,
    'io.modelcontextprotocol/clientCapabilities': {},
  }
  return post(port, { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }, headers)
}

function expect(condition, what) {
  if (!condition) throw new Error(`gateway from the tarballs: ${what}`)
}

/**
 * Runs the checks above in `folder` (the gateway's tarballs already installed there); the
 * upstream is server-everything from bench/node_modules. Returns a one-line summary.
 */
export async function checkGatewayFromTarballs(folder, root) {
  const everything = join(
    realpathSync(join(root, 'bench', 'node_modules', '@modelcontextprotocol', 'server-everything')),
    'dist',
    'index.js',
  )
  const help = gateway(folder, ['--help'])
  expect((await within(help.exited, '--help')) === 0, `--help exited non-zero: ${help.out.stderr}`)
  expect(help.out.stdout.includes('--port'), '--help does not list --port')

  const upstream = ['--', process.execPath, everything, 'stdio']
  const running = gateway(folder, ['--port', '0', ...upstream])
  try {
    const port = await within(
      new Promise((resolve, reject) => {
        const look = () => {
          const line = running.out.stderr.split('\n').find((l) => l.includes('"event":"listening"'))
          if (line !== undefined) resolve(JSON.parse(line).port)
        }
        running.child.stderr.on('data', look)
        running.exited.then((code) =>
          reject(new Error(`gateway exited ${code}: ${running.out.stderr}`)),
        )
      }),
      'listening line',
    )
    const discover = await modern(port, 1, 'server/discover')
    expect(discover.status === 200, `server/discover answered ${discover.status}`)
    expect(
      discover.body?.result?.supportedVersions?.includes(V2026),
      `server/discover does not list ${V2026}`,
    )
    const init = await post(port, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    })
    expect(init.status === 200, `initialize answered ${init.status}`)
    expect(
      init.body?.result?.protocolVersion === '2025-06-18',
      'initialize did not agree 2025-06-18',
    )
    expect(init.headers.get('mcp-session-id') !== null, 'initialize issued no Mcp-Session-Id')
    // The controls are in the packed build too: a key the tool's schema does not name is refused.
    const extra = await modern(port, 2, 'tools/call', {
      name: 'echo',
      arguments: { message: 'x', injected: true },
    })
    expect(extra.body?.result?.isError === true, 'an unknown argument key reached the tool')

    const second = gateway(folder, ['--port', String(port), ...upstream])
    const code = await within(second.exited, 'second gateway on a taken port')
    const last = second.out.stderr.trim().split('\n').pop() ?? ''
    expect(code === 1, `a gateway on a taken port exited ${code}`)
    expect(
      last.includes('EADDRINUSE') && last.includes(String(port)) && last.includes('--port'),
      `a taken port is not named: ${last}`,
    )
    return 'npx tollgate-gateway --help; server/discover (2026) and initialize (2025) through it; a taken port named'
  } finally {
    try {
      process.kill(-running.child.pid, 'SIGTERM')
    } catch {}
    await within(running.exited, 'gateway stop').catch(() => {
      try {
        process.kill(-running.child.pid, 'SIGKILL')
      } catch {}
    })
  }
}
