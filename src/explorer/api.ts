/** The engram API as the page calls it: same origin, the session token as a Bearer header. */

const STORAGE_KEY = "engram.session";

let token: string | null = sessionStorage.getItem(STORAGE_KEY);

export const session = {
  get token() {
    return token;
  },
  /** Keeps the token for this tab only (sessionStorage), never in localStorage or a cookie. */
  set(value: string | null) {
    token = value;
    if (value) sessionStorage.setItem(STORAGE_KEY, value);
    else sessionStorage.removeItem(STORAGE_KEY);
  },
};

/** An API error: `message` is the server's error.message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new ApiError(0, "network", `The service did not answer (${(error as Error).message}).`);
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {}
  if (!res.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new ApiError(res.status, error?.code ?? "http_error", error?.message ?? `${res.status} ${res.statusText}`);
  }
  return parsed as T;
}

/** A query string of the defined values. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== "") q.set(key, String(value));
  const s = q.toString();
  return s ? `?${s}` : "";
}
