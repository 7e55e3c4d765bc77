import { packageBuild } from '../../tsup.shared.mjs'

export default packageBuild()
