import { appBuild } from '../../tsup.shared.mjs'

export default appBuild()
