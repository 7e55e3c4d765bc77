import type { UserConfig } from 'vitest/config'

export const SOURCE_CONDITION: '@tollgate/source'
export const sourceResolution: Pick<UserConfig, 'plugins' | 'environments'>
export function tollgateVitestConfig(test?: UserConfig['test']): UserConfig
