import { api, session } from "./api";
import { field, h, replace } from "./dom";
import { attempt, notify } from "./notice";

interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}
declare global {
  interface Window {
    ethereum?: Eip1193;
  }
}

const toHex = (text: string) => `0x${[...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;

/** Asks the injected wallet to sign `{prefix}:{unix_ts}` and trades the signature for a session token. */
async function signInWithWallet(wallet: Eip1193): Promise<string> {
  const accounts = (await wallet.request({ method: "eth_requestAccounts" })) as string[];
  const address = accounts[0];
  if (!address) throw new Error("the wallet gave no account");
  const info = await api<{ auth: { message_to_sign: string } }>("GET", "/v1/free-tier/info");
  const timestamp = Math.floor(Date.now() / 1000);
  const message = info.auth.message_to_sign.replace("{unix_timestamp}", String(timestamp));
  const signature = (await wallet.request({ method: "personal_sign", params: [toHex(message), address] })) as string;
  const reply = await api<{ token: string }>("POST", "/auth/session", { address, timestamp, signature });
  return reply.token;
}

/** The sign-in screen: a browser wallet, or a pasted session token. */
export function renderSignIn(root: HTMLElement, onSignedIn: () => void): void {
  const tokenInput = h("input", { id: "token", name: "token", type: "password", autocomplete: "off", required: true, placeholder: "eyJhbGciOi…" });
  const pasteForm = h(
    "form",
    {
      class: "stack",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const value = tokenInput.value.trim();
        session.set(value);
        const ok = await attempt(() => api("GET", "/v1/free-tier/status"));
        if (ok) onSignedIn();
        else session.set(null);
      },
    },
    field("Session token", tokenInput),
    h("button", { type: "submit" }, "Use token"),
  );
  const wallet = window.ethereum;
  const walletButton = h(
    "button",
    {
      type: "button",
      id: "wallet-sign-in",
      disabled: !wallet,
      onclick: async () => {
        if (!wallet) return;
        notify("Waiting for the wallet's signature…");
        const token = await attempt(() => signInWithWallet(wallet));
        if (!token) return;
        session.set(token);
        onSignedIn();
      },
    },
    "Sign in with browser wallet",
  );
  replace(
    root,
    h(
      "section",
      { class: "card sign-in", "aria-labelledby": "sign-in-title" },
      h("h2", { id: "sign-in-title" }, "Sign in"),
      h("p", {}, "Your wallet signs a timestamped message; engram answers with a session token, kept in this tab only."),
      walletButton,
      !wallet && h("p", { class: "muted" }, "No browser wallet found (window.ethereum)."),
      h("p", { class: "muted" }, "Or paste a session token from POST /auth/session:"),
      pasteForm,
    ),
  );
  (wallet ? walletButton : tokenInput).focus();
}
