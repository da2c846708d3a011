/**
 * The service's log, filtered by LOG_LEVEL (error < warn < info < debug; default info). Messages
 * carry their own `[engram]` / `[redis]` prefix. `debug` adds one line per HTTP request (method,
 * path, status, milliseconds, request id): useful to follow a client, too much for a busy service.
 */
export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

let threshold = LOG_LEVELS.indexOf("info");

export function setLogLevel(level: LogLevel): void {
  threshold = LOG_LEVELS.indexOf(level);
}

export const logs = (level: LogLevel): boolean => LOG_LEVELS.indexOf(level) <= threshold;

export const log = {
  error: (...parts: unknown[]) => logs("error") && console.error(...parts),
  warn: (...parts: unknown[]) => logs("warn") && console.warn(...parts),
  info: (...parts: unknown[]) => logs("info") && console.log(...parts),
  debug: (...parts: unknown[]) => logs("debug") && console.log(...parts),
};
