import { packageBuild } from '../../tsup.shared.mjs'

// The root entry and one entry per framework adapter (subpath exports), so importing the root
// never loads a framework.
export default packageBuild(['src/index.ts', 'src/fastify.ts', 'src/hono.ts', 'src/koa.ts'])
