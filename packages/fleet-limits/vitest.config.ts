import { tollgateVitestConfig } from '../../vitest.shared.mjs'

export default tollgateVitestConfig()
