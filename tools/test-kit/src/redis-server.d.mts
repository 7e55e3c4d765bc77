// Types of redis-server.mjs (plain JavaScript so Node scripts can import it too).

/** Whether a `redis-server` binary is on PATH (checked once, when this module loads). */
export declare const hasRedisServer: boolean

/** A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick, then released). */
export declare function freePort(): Promise<number>

/** A running private redis-server. */
export interface RedisProcess {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string
  /** Kills the server (SIGKILL) and removes its working folder; idempotent. */
  stop(): Promise<void>
}

/**
 * Spawns `redis-server` with no persistence (`--save ''`, `--appendonly no`) in a temporary
 * folder, resolving once it accepts connections; rejects after 10 s or if it exits first.
 */
export declare function startRedis(): Promise<RedisProcess>

/** A private redis-server that can be killed and started again on the same port. */
export interface RestartableRedis extends RedisProcess {
  /** Kills the server (SIGKILL): clients see the connection drop. */
  kill(): Promise<void>
  /** Starts the server again on the same port: empty, or from its append-only file. */
  start(): Promise<void>
  /** Deletes the append-only file, so the next `start()` is an empty Redis. */
  wipe(): void
}

/** Options of {@link startRestartableRedis}. */
export interface RestartableRedisOptions {
  /** Persistence on (AOF, fsync every second), so a restart keeps the data. Default false. */
  readonly appendOnly?: boolean
}

/**
 * Like {@link startRedis}, on a port that stays the server's: `kill()` ends it and `start()`
 * brings it up again on the same port (fresh and empty unless `appendOnly`).
 */
export declare function startRestartableRedis(
  options?: RestartableRedisOptions,
): Promise<RestartableRedis>
