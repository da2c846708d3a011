/** The memory explorer: hash routes (#/memories, #/search, #/graph, #/stats, #/memory/<id>) over the engram API. */
import { api, session } from "./api";
import { renderDetail } from "./detail-view";
import { h, replace } from "./dom";
import { disposeGraph, renderGraph } from "./graph-view";
import { renderList } from "./list-view";
import { clearNotice } from "./notice";
import { renderSearch } from "./search-view";
import { renderSignIn } from "./sign-in";
import { renderStats } from "./stats-view";

const VIEWS = [
  ["memories", "Memories"],
  ["search", "Search & recall"],
  ["graph", "Graph"],
  ["stats", "Stats"],
] as const;

const main = document.getElementById("main")!;
const nav = document.getElementById("nav")!;
const account = document.getElementById("account")!;

function route(): void {
  if (!session.token) {
    nav.hidden = true;
    replace(account);
    renderSignIn(main, () => {
      void afterSignIn();
    });
    return;
  }
  const [path = "", search = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const [view = "memories", id] = path.split("/");
  for (const link of nav.querySelectorAll("a")) link.setAttribute("aria-current", String(link.dataset.view === view));
  disposeGraph();
  if (view === "memory" && id) void renderDetail(main, id);
  else if (view === "search") renderSearch(main);
  else if (view === "graph") renderGraph(main, new URLSearchParams(search));
  else if (view === "stats") void renderStats(main);
  else renderList(main);
}

async function afterSignIn(): Promise<void> {
  clearNotice();
  nav.hidden = false;
  try {
    const status = await api<{ wallet: string }>("GET", "/v1/free-tier/status");
    const namespaces = await api<{ namespaces: { namespace: string }[] }>("GET", "/v1/namespaces");
    replace(document.getElementById("namespaces")!, namespaces.namespaces.map((n) => h("option", { value: n.namespace })));
    replace(
      account,
      h("span", { class: "wallet", title: status.wallet }, `${status.wallet.slice(0, 6)}…${status.wallet.slice(-4)}`),
      h(
        "button",
        {
          type: "button",
          id: "sign-out",
          onclick: () => {
            session.set(null);
            location.hash = "";
            route();
          },
        },
        "Sign out",
      ),
    );
  } catch {
    // an expired or revoked token: back to sign-in
    session.set(null);
  }
  route();
}

nav.replaceChildren(...VIEWS.map(([view, label]) => h("a", { href: `#/${view}`, "data-view": view }, label)));
window.addEventListener("hashchange", route);
document.addEventListener("keydown", (event) => {
  // Escape leaves a memory's detail (back to where it was opened from) unless a field is being edited.
  const editing = (event.target as HTMLElement | null)?.closest("input, textarea, select");
  if (event.key === "Escape" && !editing && location.hash.startsWith("#/memory/")) history.length > 1 ? history.back() : (location.hash = "#/memories");
});
if (session.token) void afterSignIn();
else route();
