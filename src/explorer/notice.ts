import { ApiError } from "./api";

/** The page's one status line (a live region): errors from the API show their message here. */
export function notify(message: string, kind: "error" | "info" = "info"): void {
  const el = document.getElementById("notice");
  if (!el) return;
  el.textContent = message;
  el.className = `notice ${kind}`;
  el.setAttribute("role", kind === "error" ? "alert" : "status");
  el.hidden = !message;
}

export function clearNotice(): void {
  notify("");
}

/** Runs an action, showing an API error's message instead of throwing. */
export async function attempt<T>(action: () => Promise<T>): Promise<T | undefined> {
  try {
    clearNotice();
    return await action();
  } catch (error) {
    notify(error instanceof ApiError ? error.message : `Unexpected error: ${(error as Error).message}`, "error");
    return undefined;
  }
}
