import type { UserConfig } from 'vitest/config'

export function tollgateVitestConfig(test?: UserConfig['test']): UserConfig
