// Builds the app once before the suite: the live tests spawn the real bundle (dist/main.js).
// turbo's `test` task depends on `^build` only (the dependencies), so the app builds itself here.
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export default function setup(): void {
  const appDir = fileURLToPath(new URL('../../', import.meta.url))
  const tsupDir = dirname(createRequire(join(appDir, 'package.json')).resolve('tsup/package.json'))
  execFileSync(process.execPath, [join(tsupDir, 'dist', 'cli-default.js')], {
    cwd: appDir,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
}
