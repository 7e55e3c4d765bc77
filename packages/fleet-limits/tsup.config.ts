import { packageBuild } from '../../tsup.shared.mjs'

export default packageBuild(['src/index.ts', 'src/redis.ts'])
