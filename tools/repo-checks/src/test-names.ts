/**
 * The names of the tests a vitest file declares, read from its source without running it.
 *
 * Recognised: `it('name', ...)`, `test("name", ...)`, any chain of modifiers
 * (`it.skip`, `it.concurrent.only`, ...), and calls whose first argument list is not the name
 * (`it.prop([arbitraries])('name', ...)`, `test.prop({...})('name')`,
 * `it.each([...])('name %s', ...)`). A name is a string literal in single or double quotes, or a
 * template literal. A template literal with `${...}` substitutions and an `each` name with
 * printf-style (`%s`) or `$field` placeholders become patterns in which a placeholder matches
 * any text, so a cited expansion of a parametrised test is found too.
 */
export interface TestNames {
  /** Exact names (string literals and templates without substitutions), unescaped. */
  readonly exact: ReadonlySet<string>
  /** Parametrised names, anchored, with each placeholder as `.+?`. */
  readonly patterns: readonly RegExp[]
}

const IDENT = /[A-Za-z0-9_$]/

/** Reads the test names declared in a test file's source text. */
export function extractTestNames(source: string): TestNames {
  const exact = new Set<string>()
  const patterns: RegExp[] = []
  const scanner = new Scanner(source)
  // The last character of the last token that was not whitespace or a comment: `x.it(...)`
  // is a method call, not a test (and a comment ending in a full stop does not count).
  let previous = ''
  while (!scanner.done()) {
    const word = scanner.identifier()
    if (word === undefined) {
      const kind = scanner.skipToken()
      if (kind === 'token') previous = source[scanner.pos - 1] ?? ''
      continue
    }
    const afterDot = previous === '.'
    previous = word.slice(-1)
    if ((word !== 'it' && word !== 'test') || afterDot) continue
    const found = scanner.readTestName()
    if (found === undefined) continue
    if (found.kind === 'exact' && !found.each) exact.add(found.text)
    else patterns.push(toPattern(found))
  }
  return { exact, patterns }
}

/** True when `name` is declared by `names`, exactly or as an expansion of a parametrised name. */
export function hasTestName(names: TestNames, name: string): boolean {
  if (names.exact.has(name)) return true
  return names.patterns.some((pattern) => pattern.test(name))
}

interface FoundName {
  readonly kind: 'exact' | 'template'
  /** For `exact`, the unescaped text; for `template`, the parts between substitutions. */
  readonly text: string
  readonly parts: readonly string[]
  readonly each: boolean
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function toPattern(found: FoundName): RegExp {
  const placeholder = found.each ? /%[sdifjoOc#%]|\$[A-Za-z_][\w.]*|\$#/g : undefined
  const pieces = found.parts.map((part) => {
    if (placeholder === undefined) return escapeRegExp(part)
    return part
      .split(placeholder)
      .map((piece) => escapeRegExp(piece))
      .join('.+?')
  })
  return new RegExp(`^${pieces.join('.+?')}$`, 's')
}

/** A small JavaScript tokenizer: enough to skip strings, templates, comments and regexes. */
class Scanner {
  pos = 0
  constructor(private readonly src: string) {}

  done(): boolean {
    return this.pos >= this.src.length
  }

  private peek(offset = 0): string {
    return this.src[this.pos + offset] ?? ''
  }

  identifier(): string | undefined {
    if (!/[A-Za-z_$]/.test(this.peek())) return undefined
    if (this.pos > 0 && IDENT.test(this.src[this.pos - 1] ?? '')) return undefined
    const start = this.pos
    while (IDENT.test(this.peek())) this.pos++
    return this.src.slice(start, this.pos)
  }

  /**
   * Skips one token that is not an identifier start: a string, a comment, or one character.
   * Says whether it was blank (whitespace or a comment) or a token.
   */
  skipToken(): 'blank' | 'token' {
    const ch = this.peek()
    if (ch === "'" || ch === '"') this.readQuoted()
    else if (ch === '`') this.readTemplate()
    else if (ch === '/' && this.peek(1) === '/') {
      this.skipLineComment()
      return 'blank'
    } else if (ch === '/' && this.peek(1) === '*') {
      this.skipBlockComment()
      return 'blank'
    } else if (ch === '/' && this.regexAllowed()) this.skipRegex()
    else if (IDENT.test(ch)) {
      while (IDENT.test(this.peek())) this.pos++
    } else {
      this.pos++
      if (/\s/.test(ch)) return 'blank'
    }
    return 'token'
  }

  /** A `/` starts a regex literal where an operand is expected (after `(`, `=`, `,`, ...). */
  private regexAllowed(): boolean {
    let i = this.pos - 1
    while (i >= 0 && /\s/.test(this.src[i] ?? '')) i--
    if (i < 0) return true
    const prev = this.src[i] ?? ''
    if ('(,=:[!&|?{};+-*%<>~^'.includes(prev)) return true
    return /(?:^|[^\w$])(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/.test(
      this.src.slice(Math.max(0, i - 10), i + 1),
    )
  }

  private skipRegex(): void {
    this.pos++
    let inClass = false
    while (!this.done() && this.peek() !== '\n') {
      const ch = this.peek()
      if (ch === '\\') this.pos += 2
      else {
        this.pos++
        if (ch === '[') inClass = true
        else if (ch === ']') inClass = false
        else if (ch === '/' && !inClass) break
      }
    }
    while (IDENT.test(this.peek())) this.pos++
  }

  private skipSpace(): void {
    for (;;) {
      const ch = this.peek()
      if (ch !== '' && /\s/.test(ch)) this.pos++
      else if (ch === '/' && this.peek(1) === '/') this.skipLineComment()
      else if (ch === '/' && this.peek(1) === '*') this.skipBlockComment()
      else return
    }
  }

  private skipLineComment(): void {
    const end = this.src.indexOf('\n', this.pos)
    this.pos = end < 0 ? this.src.length : end + 1
  }

  private skipBlockComment(): void {
    const end = this.src.indexOf('*/', this.pos + 2)
    this.pos = end < 0 ? this.src.length : end + 2
  }

  /** Reads a '...' or "..." literal at `pos` and returns its value. */
  private readQuoted(): string {
    const quote = this.peek()
    this.pos++
    let raw = ''
    while (!this.done() && this.peek() !== quote && this.peek() !== '\n') {
      if (this.peek() === '\\') {
        raw += this.src.slice(this.pos, this.pos + 2)
        this.pos += 2
      } else {
        raw += this.peek()
        this.pos++
      }
    }
    this.pos++
    return unescapeJs(raw)
  }

  /** Reads a template literal at `pos`; returns its cooked static parts. */
  private readTemplate(): string[] {
    this.pos++
    const parts: string[] = []
    let raw = ''
    while (!this.done() && this.peek() !== '`') {
      if (this.peek() === '\\') {
        raw += this.src.slice(this.pos, this.pos + 2)
        this.pos += 2
      } else if (this.peek() === '$' && this.peek(1) === '{') {
        parts.push(unescapeJs(raw))
        raw = ''
        this.pos += 2
        this.skipBalanced('{', '}')
      } else {
        raw += this.peek()
        this.pos++
      }
    }
    this.pos++
    parts.push(unescapeJs(raw))
    return parts
  }

  /** Skips to just past the `close` that balances an already-consumed `open`. */
  private skipBalanced(open: string, close: string): void {
    let depth = 1
    while (!this.done() && depth > 0) {
      const ch = this.peek()
      if (ch === open) {
        depth++
        this.pos++
      } else if (ch === close) {
        depth--
        this.pos++
      } else this.skipToken()
    }
  }

  /**
   * After `it`/`test`: follows `.modifier` and `.call(args)` links until a call whose first
   * argument is a string or template literal, and returns that literal.
   */
  readTestName(): FoundName | undefined {
    let each = false
    for (let guard = 0; guard < 16; guard++) {
      this.skipSpace()
      const ch = this.peek()
      if (ch === '.') {
        this.pos++
        this.skipSpace()
        const name = this.identifier()
        if (name === undefined) return undefined
        if (name === 'each' || name === 'for') each = true
        continue
      }
      if (ch !== '(') return undefined
      this.pos++
      this.skipSpace()
      const first = this.peek()
      if (first === "'" || first === '"') {
        const text = this.readQuoted()
        return { kind: 'exact', text, parts: [text], each }
      }
      if (first === '`') {
        const parts = this.readTemplate()
        if (parts.length === 1) {
          const text = parts[0] ?? ''
          return { kind: 'exact', text, parts, each }
        }
        return { kind: 'template', text: parts.join(''), parts, each }
      }
      this.skipBalanced('(', ')')
    }
    return undefined
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
}

/** Cooks the escape sequences of a JavaScript string literal body. */
export function unescapeJs(raw: string): string {
  return raw.replace(
    /\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])/g,
    (_, esc: string) => {
      if (esc.startsWith('u{')) return String.fromCodePoint(Number.parseInt(esc.slice(2, -1), 16))
      if (esc.startsWith('u') && esc.length === 5)
        return String.fromCharCode(Number.parseInt(esc.slice(1), 16))
      if (esc.startsWith('x') && esc.length === 3)
        return String.fromCharCode(Number.parseInt(esc.slice(1), 16))
      if (esc === '\n' || esc === '\r\n' || esc === '\r') return ''
      return SIMPLE_ESCAPES[esc] ?? esc
    },
  )
}
