/**
 * The service's log, filtered by LOG_LEVEL (error < warn < info < debug; default info) and written
 * as LOG_FORMAT says: `text` (default) as given, `json` one JSON object per line for a log
 * collector: `time`, `level`, `source` and `msg` (from a message's `[engram]` / `[redis]` prefix),
 * `error` and `stack` for an Error among the parts, and the fields of a structured entry.
 */
export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ["text", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

let threshold = LOG_LEVELS.indexOf("info");
let format: LogFormat = "text";

export function setLogLevel(level: LogLevel): void {
  threshold = LOG_LEVELS.indexOf(level);
}

export function setLogFormat(next: LogFormat): void {
  format = next;
}

export const logFormat = (): LogFormat => format;

export const logs = (level: LogLevel): boolean => LOG_LEVELS.indexOf(level) <= threshold;

const sinks: Record<LogLevel, (...parts: unknown[]) => void> = {
  error: (...parts) => console.error(...parts),
  warn: (...parts) => console.warn(...parts),
  info: (...parts) => console.log(...parts),
  debug: (...parts) => console.log(...parts),
};

/** A log line as one JSON object: the message's parts read into fields. */
function jsonLine(level: LogLevel, parts: unknown[], fields: Record<string, unknown> = {}): string {
  const line: Record<string, unknown> = { time: new Date().toISOString(), level };
  const words: string[] = [];
  for (const part of parts) {
    if (part instanceof Error) Object.assign(line, { error: part.message, stack: part.stack });
    else if (part !== null && typeof part === "object") Object.assign(line, part);
    else if (part !== undefined && part !== "") words.push(String(part));
  }
  const text = words.join(" ");
  const prefix = /^\[([\w-]+)\] /.exec(text);
  if (prefix) line.source = prefix[1];
  line.msg = prefix ? text.slice(prefix[0].length) : text;
  return JSON.stringify({ ...line, ...fields });
}

function write(level: LogLevel, parts: unknown[]): void {
  if (!logs(level)) return;
  if (format === "json") sinks[level](jsonLine(level, parts));
  else sinks[level](...parts);
}

export const log = {
  error: (...parts: unknown[]) => write("error", parts),
  warn: (...parts: unknown[]) => write("warn", parts),
  info: (...parts: unknown[]) => write("info", parts),
  debug: (...parts: unknown[]) => write("debug", parts),
  /** One structured entry: its fields in JSON, `text()` in text format. */
  entry(level: LogLevel, fields: Record<string, unknown>, text: () => string): void {
    if (!logs(level)) return;
    if (format === "json") sinks[level](jsonLine(level, [], fields));
    else sinks[level](text());
  },
};
