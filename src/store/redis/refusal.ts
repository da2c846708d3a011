import { SocketClosedUnexpectedlyError } from "redis";

/**
 * Why a Redis server closed a connection, in its own words. A server that refuses a client (protected
 * mode, `maxclients` reached) sends one error reply and closes. node-redis takes that reply as the
 * answer to its first handshake command (`CLIENT SETINFO`, whose errors it ignores, as old servers
 * lack it), so all it reports is the closed socket: `read ECONNRESET` or "Socket closed unexpectedly".
 * Only then does a second, plain connection ask again and read the reason.
 */

/** How long the second connection may take, in ms: it runs only after a failure. */
const ASK_MS = 1000;

/** The server closed (or reset) the connection rather than it failing to open or timing out. */
export function closedByServer(error: unknown): boolean {
  if (error instanceof SocketClosedUnexpectedlyError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ECONNRESET" || code === "EPIPE";
}

/**
 * The error line (without its `-`) the server at `url` sends before closing a new connection that
 * says PING, e.g. `DENIED Redis is running in protected mode because …`; undefined when it answers,
 * stays open, says nothing or cannot be reached. An error on a connection left open (NOAUTH to the
 * PING of a client that did not authenticate) is not a reason for a close.
 */
export async function refusalReason(url: string, timeoutMs = ASK_MS): Promise<string | undefined> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  const { promise, resolve } = Promise.withResolvers<string | undefined>();
  let received = "";
  const timer = setTimeout(() => resolve(undefined), timeoutMs);
  const settle = (reason: string | undefined) => {
    clearTimeout(timer);
    resolve(reason);
  };
  const socket = await Bun.connect({
    hostname: target.hostname.replace(/^\[|\]$/g, ""),
    port: Number(target.port || 6379),
    tls: target.protocol === "rediss:",
    socket: {
      open: (s) => void s.write("PING\r\n"),
      data: (_s, chunk) => {
        received += chunk.toString("utf8");
        if (!received.startsWith("-")) settle(undefined); // an answer: not refusing
      },
      close: () => settle(errorLine(received)),
      error: () => settle(errorLine(received)),
      connectError: () => settle(undefined),
    },
  }).catch(() => undefined);
  if (!socket) settle(undefined);
  const reason = await promise;
  socket?.end();
  return reason;
}

/** The first line of a RESP error reply, if `text` starts with one. */
function errorLine(text: string): string | undefined {
  if (!text.startsWith("-")) return undefined;
  const end = text.indexOf("\r\n");
  return (end < 0 ? text.slice(1) : text.slice(1, end)).trim() || undefined;
}

/** `message`, with what Redis said when there is something. */
export const withReason = (message: string, reason: string | undefined) => (reason ? `${message} (Redis said: ${reason})` : message);
