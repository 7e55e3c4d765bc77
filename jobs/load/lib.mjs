// Shared helpers for jobs/load/ and jobs/faults/: start an app as a child process on
// 127.0.0.1 with a probe that reports its memory and active handles after a full GC, send raw
// HTTP requests whose bodies arrive in timed parts, and record results with date and machine.
// Everything here talks to 127.0.0.1 only and is bounded in count and time by its caller.
import { execFileSync, fork } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { cpus, loadavg, release, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
// Not a workspace package: the kit's plain-JavaScript module, imported by path.
import {
  INITIALIZED_NOTIFICATION,
  initializeRequest,
  MCP_POST_HEADERS,
  PROTOCOL_VERSION,
} from '../../tools/test-kit/src/mcp-initialize.mjs'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url))

export const MiB = 1024 * 1024

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** The machine a result was measured on. */
export function machine() {
  let commit = 'unknown'
  try {
    commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
    }).trim()
  } catch {}
  return {
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    os: `${process.platform} ${release()}`,
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    loadAtStart: loadavg().map((l) => Number(l.toFixed(1))),
    commit,
  }
}

/** Writes `<dir>/results/<name>.json` with the date and machine, and prints it. */
export function record(dir, name, result) {
  const out = { name, date: new Date().toISOString(), machine: machine(), ...result }
  const folder = fileURLToPath(new URL('./results/', dir))
  mkdirSync(folder, { recursive: true })
  writeFileSync(`${folder}${name}.json`, `${JSON.stringify(out, null, 2)}\n`)
  console.log(JSON.stringify(out, null, 2))
  return out
}

/**
 * Starts `entry` (a built app) as a child process with `--expose-gc` and the probe preloaded.
 * `ready(line)` picks the port out of the app's output. Returns the port, the child, `probe()`
 * (RSS, peak RSS, heap after GC, active handles by type) and `stop()`.
 */
export async function startApp(entry, { args = [], env = {}, ready, timeoutMs = 20_000 }) {
  const child = fork(entry, args, {
    cwd: ROOT,
    execArgv: ['--expose-gc', '--import', PROBE],
    env: { ...process.env, HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  let output = ''
  const found = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`app did not start in ${timeoutMs} ms: ${output.slice(-500)}`)),
      timeoutMs,
    )
    const onData = (chunk) => {
      output += chunk.toString()
      for (const line of output.split('\n')) {
        const hit = ready(line)
        if (hit !== undefined) {
          clearTimeout(timer)
          resolve(hit)
          return
        }
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) =>
      reject(new Error(`app exited (${code}) before it was ready: ${output.slice(-500)}`)),
    )
  })
  let seq = 0
  const probe = () =>
    new Promise((resolve, reject) => {
      const id = ++seq
      const timer = setTimeout(() => reject(new Error('probe timed out')), 10_000)
      const onMessage = (message) => {
        if (message?.probe !== id) return
        clearTimeout(timer)
        child.off('message', onMessage)
        resolve(message.result)
      }
      child.on('message', onMessage)
      child.send({ probe: id })
    })
  const stop = async () => {
    if (child.exitCode !== null) return
    child.kill('SIGTERM')
    await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5_000)])
    if (child.exitCode === null) child.kill('SIGKILL')
  }
  return { ...found, child, probe, stop, output: () => output }
}

/**
 * One raw HTTP/1.1 request on its own socket. `parts` are written in order, `gapMs` apart,
 * and writing stops as soon as a response has begun (a client that reads early answers does
 * not keep sending into a refusal). `abortAfterPart` destroys the socket after that part.
 * Resolves `{ status, body, head, ms }`, or `{ status: 'reset' | 'closed' | 'timeout' }`.
 * `localAddress` picks the loopback address the request comes from (another caller).
 */
export function rawRequest(
  port,
  {
    method = 'POST',
    path = '/',
    headers = {},
    parts = [],
    gapMs = 0,
    abortAfterPart,
    timeoutMs = 60_000,
    localAddress,
  },
) {
  return new Promise((resolve) => {
    const started = Date.now()
    const socket = connect({ host: '127.0.0.1', port, localAddress })
    socket.setNoDelay(true)
    let response = ''
    let settled = false
    const finish = (result) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ ...result, ms: Date.now() - started })
    }
    const timer = setTimeout(() => finish({ status: 'timeout' }), timeoutMs)
    const parsed = () => {
      const head = response.indexOf('\r\n\r\n')
      if (head < 0) return undefined
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0)
      const length = Number(
        /\r\ncontent-length: *(\d+)/i.exec(response.slice(0, head))?.[1] ?? Number.NaN,
      )
      const body = response.slice(head + 4)
      if (Number.isFinite(length) && Buffer.byteLength(body) < length) return undefined
      return { status, body, head: response.slice(0, head) }
    }
    socket.on('data', (chunk) => {
      response += chunk.toString('latin1')
      const done = parsed()
      if (done) finish(done)
    })
    socket.on('error', (error) =>
      finish(parsed() ?? { status: error.code === 'ECONNRESET' ? 'reset' : `error ${error.code}` }),
    )
    socket.on('close', () => finish(parsed() ?? { status: 'closed' }))
    socket.on('connect', async () => {
      const head = [
        `${method} ${path} HTTP/1.1`,
        'Host: 127.0.0.1',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
        '',
        '',
      ].join('\r\n')
      socket.write(head)
      for (let i = 0; i < parts.length; i++) {
        if (settled || response.length > 0) return
        if (i > 0 && gapMs > 0) await sleep(gapMs)
        if (settled || response.length > 0) return
        socket.write(parts[i])
        if (abortAfterPart === i) {
          await sleep(20)
          finish({ status: 'aborted by client' })
          return
        }
      }
    })
  })
}

/** Counts of each distinct value. */
export function tally(values) {
  const out = {}
  for (const v of values) out[v] = (out[v] ?? 0) + 1
  return out
}

/** Peak and current RSS of a Linux process from /proc, in MiB. */
export function procMemory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN)
    return { rssMiB: kb('VmRSS') / 1024, peakRssMiB: kb('VmHWM') / 1024 }
  } catch {
    return { rssMiB: Number.NaN, peakRssMiB: Number.NaN }
  }
}

/** Samples the RSS of `pid` every `everyMs` until `stop()`; returns the highest sample. */
export function sampleRss(pid, everyMs = 20) {
  let max = 0
  const timer = setInterval(() => {
    const { rssMiB } = procMemory(pid)
    if (rssMiB > max) max = rssMiB
  }, everyMs)
  return {
    stop() {
      clearInterval(timer)
      return max
    },
  }
}

/** The Express example (apps/express-example/dist/main.js) on a free port. */
export function startExpressExample() {
  return startApp(`${ROOT}apps/express-example/dist/main.js`, {
    env: { PORT: '0' },
    ready: (line) => {
      const port = /notes API on http:\/\/127\.0\.0\.1:(\d+)/.exec(line)?.[1]
      return port === undefined ? undefined : { port: Number(port) }
    },
  })
}

/** The reference MCP server (apps/mcp-server/dist/main.js) over Streamable HTTP on a free port. */
export async function startMcpServer(args = []) {
  let token
  const tokens = {}
  const app = await startApp(`${ROOT}apps/mcp-server/dist/main.js`, {
    args: ['--port', '0', ...args],
    ready: (line) => {
      if (!line.startsWith('{')) return undefined
      try {
        const event = JSON.parse(line)
        if (event.event === 'demo_credentials' || Array.isArray(event.credentials)) {
          token = event.credentials?.find((c) => c.id === 'demo-admin')?.token ?? token
          for (const c of event.credentials ?? []) tokens[c.id] = c.token
        }
        if (
          event.port !== undefined &&
          (event.event === 'listening' || event.msg === 'listening')
        ) {
          return { port: event.port }
        }
      } catch {}
      return undefined
    },
  })
  if (token === undefined) throw new Error('no demo-admin token in the server output')
  return { ...app, token, tokens }
}

/** Opens an MCP session on `path`; returns its id. */
export async function openMcpSession(port, token, path = '/mcp') {
  const headers = { ...MCP_POST_HEADERS, authorization: `Bearer ${token}` }
  const answer = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(initializeRequest(0, 'load')),
  })
  const session = answer.headers.get('mcp-session-id')
  await answer.text()
  if (session === null) throw new Error(`initialize answered ${answer.status} without a session`)
  await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL_VERSION },
    body: JSON.stringify(INITIALIZED_NOTIFICATION),
  }).then((r) => r.text())
  return session
}
