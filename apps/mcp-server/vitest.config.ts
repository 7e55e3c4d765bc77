import { tollgateVitestConfig } from '../../vitest.shared.mjs'

export default tollgateVitestConfig({ globalSetup: ['test/helpers/global-setup.ts'] })
