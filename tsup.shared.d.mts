import type { Options } from 'tsup'

export function packageBuild(entry?: string[]): Options
export function appBuild(entry?: string[]): Options
