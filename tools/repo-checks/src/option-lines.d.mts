/** One file's non-blank lines and, of those, its option code's (see option-lines.mjs). */
export interface FileCount {
  readonly total: number
  readonly option: number
  readonly generated?: true
}

/** One package's non-blank source lines and option lines, with the files holding them. */
export interface PackageCount {
  readonly pkg: string
  readonly total: number
  readonly option: number
  readonly files: readonly { readonly file: string; readonly option: number }[]
}

/** Counts one file by the rule at the head of option-lines.mjs. */
export function countFile(path: string, text: string): FileCount

/** Counts every package of a checkout at `root`. */
export function countTree(root: string): PackageCount[]
