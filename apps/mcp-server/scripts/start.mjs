// The root `pnpm start`: builds the reference server and the packages it uses, then runs it in
// this process with the arguments given (`pnpm start --stdio`, `pnpm start --port 4000`).
//
// In stdio mode stdout is the JSON-RPC channel, so nothing but the server may write to it: the
// build's own stdout (turbo's banner, task logs) is sent to stderr, and the server is imported
// here rather than spawned behind another script runner that would echo its command.
//
// TOLLGATE_START_BUILD (a JSON array: command and arguments) replaces the build command; the
// tests use it to stand in for a build that writes to stdout.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const app = fileURLToPath(new URL('..', import.meta.url))
const root = join(app, '..', '..')
const turbo = join(root, 'node_modules', '.bin', 'turbo')
const command = process.env.TOLLGATE_START_BUILD
  ? JSON.parse(process.env.TOLLGATE_START_BUILD)
  : [turbo, 'run', 'build', '--filter=@tollgate/mcp-server...', '--output-logs=errors-only']

// One line before the build, so a first start (30 to 75 s of compiling) is not silent; on
// stderr like everything else here, so stdio mode keeps stdout for JSON-RPC.
process.stderr.write(
  'start: building the reference server and the packages it uses (the first build takes up to a minute; later ones are cached)\n',
)
// stdout of the build goes to file descriptor 2: visible in a terminal, never on the channel.
const built = spawnSync(command[0], command.slice(1), { cwd: root, stdio: ['ignore', 2, 2] })
if (built.status !== 0) {
  process.stderr.write(
    `start: the build failed (${built.error ? built.error.message : `exit ${built.status}`})\n`,
  )
  process.exit(built.status ?? 1)
}
// dist/main.js reads process.argv.slice(2): exactly the arguments given to this script.
await import(pathToFileURL(join(app, 'dist', 'main.js')).href)
