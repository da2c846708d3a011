#!/usr/bin/env python3
"""
Drives the public MemoClaw Python SDK (`memoclaw` 0.1.0, the python/ folder of the public repository
anajuliabit/memoclaw-sdk; not part of this repository, used unchanged) against engram and reports
how many of its methods work. Both clients run the same everyday scenario: `MemoClaw` (sync) and
`AsyncMemoClaw` (async), with their fluent builders, hooks and typed errors. Each answer is parsed by
the SDK's own pydantic models (that is where a missing or mistyped field fails) and then checked for
meaning (the stored memory comes back, the tag filter filters, the pinned memory is first, ...).

Getting the SDK and its dependencies without the Python package index
----------------------------------------------------------------------
The SDK needs httpx >= 0.27, pydantic >= 2 and eth-account >= 0.13 (x402 is optional: it is only
imported when a 402 arrives and engram is started here with a large free tier, so it is left out).
Debian 12 packs only part of that; the rest builds from the projects' public source repositories
(their release tags), with no build isolation and no dependency resolution, into a virtual
environment made from Debian's Python 3.11 with `--system-site-packages`:

  * Debian 12 packages: python3-venv, python3-dev, gcc, make, python3-setuptools, python3-anyio,
    python3-sniffio, python3-certifi, python3-idna, python3-bitarray, python3-cytoolz,
    python3-toolz, python3-parsimonious, python3-regex.
  * From source (`pip install --no-build-isolation --no-deps --no-index <checkout>`), pure Python:
    python-hyper/h11 v0.16.0, ethereum/eth-typing v5.2.0, ethereum/eth-hash v0.7.1,
    ethereum/hexbytes v1.3.1, ethereum/eth-utils v6.0.0, ethereum/eth-keys v0.8.0-beta.1,
    ethereum/pyrlp v4.1.0, ethereum/eth-rlp v2.2.0, ethereum/eth-keyfile v0.8.1,
    ethereum/eth-abi v5.2.0, ethereum/eth-account v0.13.7.
  * From source, C extensions built with gcc: Legrandin/pycryptodome v3.23.0 (Debian's
    python3-pycryptodome installs the `Cryptodome` namespace; eth-keyfile and eth-hash import
    `Crypto`), ethereum/c-kzg-4844 v2.1.8 with its `blst` submodule (supranational/blst at the
    commit the tag pins) unpacked into c-kzg-4844/blst (eth-account imports ckzg at start-up).
  * httpx 0.28.1 and httpcore 1.0.9 (encode/httpx, encode/httpcore) build with hatch plugins that
    Debian lacks: put their package folders (`httpx/`, `httpcore/`) on the path instead.
  * pydantic 2 is not in Debian 12 (it has 1.10), and pydantic-core is Rust whose crates cannot be
    fetched here: any pydantic 2 with its pydantic-core built for CPython 3.11 works. Here it was
    the copy already installed in the machine's pyenv Python 3.11, put on the venv's path (a .pth
    file naming a folder of links to pydantic, pydantic_core, annotated_types, typing_inspection and
    typing_extensions.py; both interpreters are CPython 3.11, so its extension module loads).
  * eth-typing wants typing-extensions >= 4.5 (Debian 12 has 4.4): it comes from the same place.

Then, with the SDK's python/src folder anywhere outside this repository:

  /path/to/venv/bin/python scripts/memoclaw-python-e2e.py --sdk /tmp/memoclaw-sdk/python/src

starts engram itself (`bun scripts/start.ts` from this repository, on a free port, or the first free
ones of `--ports 9100-9199`, with a fresh data folder, AUTH_MESSAGE_PREFIX=memoclaw-auth and
FREE_TIER_CALLS=100000), or, with
`--url http://127.0.0.1:8787`, uses a running one started with those two settings.

A row fails when the SDK raises (its own validation or an API error) or a check fails; its detail
says what the SDK sent and what engram answered. A row marked `sdk` is a known place where the SDK
contradicts the spec or itself (engram follows the spec there). `--engram-dir` starts another checkout. 402, 429 and 401 are
checked only when the script starts engram (it starts two more, with a tiny free tier and rate
limit, and with another auth prefix). Every step runs even when an earlier one failed; the exit
code is the number of failed steps not marked `sdk` (as the TypeScript drivers count theirs).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

parser = argparse.ArgumentParser(description="Drive the MemoClaw Python SDK against engram.")
parser.add_argument("--sdk", required=True, help="the SDK's python/src folder (holds memoclaw/)")
parser.add_argument("--url", help="a running engram (else one is started from this repository)")
parser.add_argument("--engram-dir", default=str(REPO), help="the engram checkout to start (default: this one)")
parser.add_argument("--verbose", action="store_true", help="print tracebacks of failed steps")
parser.add_argument("--ports", help="FIRST-LAST: start engram on the first free ports of this range (default: any free port)")
args = parser.parse_args()

sys.path.insert(0, str(Path(args.sdk).resolve()))
import memoclaw  # noqa: E402  (the SDK, loaded from --sdk)
from memoclaw import (  # noqa: E402
    APIError,
    AsyncMemoClaw,
    AsyncMemoryFilter,
    AsyncRecallQuery,
    BatchStore,
    MemoClaw,
    MemoryBuilder,
    MemoryFilter,
    NotFoundError,
    RecallBuilder,
    RecallQuery,
    RelationBuilder,
    UpdateInput,
    ValidationError,
)
from memoclaw.types import StoreInput  # noqa: E402
from eth_account import Account  # noqa: E402  (the SDK's own dependency)


# ── engram ───────────────────────────────────────────────────────────────────

def free_port() -> int:
    first, last = (int(p) for p in args.ports.split("-")) if args.ports else (0, 0)
    for port in range(first, last + 1):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise SystemExit(f"no free port in {args.ports}")


def start_engram(**settings: str) -> tuple[str, subprocess.Popen, str]:
    port = free_port()
    data = tempfile.mkdtemp(prefix="engram-python-e2e-")
    env = {
        **os.environ,
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "DATA_DIR": data,
        "AUTH_MESSAGE_PREFIX": "memoclaw-auth",
        "FREE_TIER_CALLS": "100000",
        **settings,
    }
    log = open(os.path.join(data, "engram.log"), "w")
    proc = subprocess.Popen(["bun", "scripts/start.ts"], cwd=args.engram_dir, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 300  # the first start builds the local model
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"engram exited with {proc.returncode}; see {log.name}")
        try:
            with urllib.request.urlopen(f"{url}/v1/free-tier/info", timeout=2) as r:
                if r.status == 200:
                    return url, proc, data
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise SystemExit(f"engram did not answer in time; see {log.name}")


started: list[tuple[subprocess.Popen, str]] = []
if args.url:
    URL = args.url.rstrip("/")
else:
    URL, proc, data = start_engram()
    started.append((proc, data))


# ── steps ────────────────────────────────────────────────────────────────────

class Row:
    def __init__(self, client: str, method: str, step: str, ok: bool, detail: str = "", known: str = "") -> None:
        self.client, self.method, self.step, self.ok, self.detail, self.known = client, method, step, ok, detail, known


rows: list[Row] = []

# Places where the SDK contradicts the spec, another MemoClaw client or itself: `step -> why`.
# engram keeps the spec (and, where the spec is silent, MemoClaw's API reference and what most of its clients read).
SDK_SIDE: dict[str, str] = {
    "export(format='csv')": "ExportResponse.memories is list[Any] for every format; the spec (GET /v1/export) has "
    "'array of memory objects for JSON; formatted output for CSV and Markdown', and engram answers the CSV document "
    "as one string (docs/api.md > GET /v1/export). One list for every format would change the spec's JSON answer.",
    "export(format='markdown')": "as for CSV: the spec's 'formatted output' is one Markdown string in engram; the SDK "
    "wants a list.",
    "client.recall(**RecallBuilder()...tags([...]).build())": "RecallBuilder.build() puts tags and memory_type under a "
    "`filters` key, but MemoClaw.recall() has no `filters` parameter: TypeError before any request (client bug).",
}


class Exchange:
    """The last request and answer of a client, recorded with the SDK's public hooks."""

    def __init__(self) -> None:
        self.sent = ""
        self.got = ""

    def before(self, method: str, path: str, body: Any) -> None:
        self.sent = f"{method} {path}" + (f" {json.dumps(body)[:300]}" if body is not None else "")
        self.got = ""
        return None

    def after(self, method: str, path: str, data: Any) -> None:
        self.got = json.dumps(data)[:400]
        return None

    def error(self, method: str, path: str, exc: Exception) -> None:
        self.got = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"


def explain(exc: BaseException) -> str:
    name = type(exc).__name__
    if hasattr(exc, "errors") and callable(getattr(exc, "errors")):  # pydantic.ValidationError
        try:
            errs = exc.errors()  # type: ignore[attr-defined]
            parts = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errs[:4]]
            return f"SDK model rejected the answer ({len(errs)} errors): " + "; ".join(parts)
        except Exception:
            pass
    if isinstance(exc, APIError):
        return f"{name} [{exc.status_code}] {exc.code}: {exc.message}" + (f" details={exc.details}" if exc.details else "")
    return f"{name}: {str(exc).splitlines()[0] if str(exc) else ''}"


class Check(Exception):
    pass


def check(cond: Any, what: str) -> None:
    if not cond:
        raise Check(f"expected {what}")


async def aw(value: Any) -> Any:
    """The value of a sync call, or the awaited value of an async one."""
    return await value if inspect.isawaitable(value) else value


async def collect(it: Any) -> list[Any]:
    if hasattr(it, "__aiter__"):
        return [x async for x in it]
    return list(it)


# ── scenario (run once with each client) ─────────────────────────────────────

async def scenario(label: str, client: Any, ex: Exchange, wallet: str) -> dict[str, Any]:
    is_async = isinstance(client, AsyncMemoClaw)
    ns = f"py-{label}-{secrets.token_hex(3)}"
    state: dict[str, Any] = {}

    async def step(method: str, name: str, run: Any) -> Any:
        try:
            value = await run()
            rows.append(Row(label, method, name, True))
            return value
        except BaseException as exc:  # noqa: BLE001 - every step runs
            if isinstance(exc, KeyboardInterrupt):
                raise
            detail = explain(exc)
            if ex.sent:
                detail += f" | sent: {ex.sent}" + (f" | got: {ex.got}" if ex.got else "")
            if args.verbose:
                traceback.print_exc()
            rows.append(Row(label, method, name, False, detail, SDK_SIDE.get(name, "")))
            return None
        finally:
            ex.sent = ex.got = ""

    # status (free tier)
    async def _status():
        r = await aw(client.status())
        check(r.wallet.lower() == wallet.lower() and r.free_tier_total > 0 and r.free_tier_remaining >= 0, "this wallet's free tier")
    await step("status", "status()", _status)

    # store
    async def _store():
        r = await aw(client.store("The user prefers dark mode in every editor.", namespace=ns, memory_type="preference",
                                  tags=["ui"], importance=0.8, metadata={"source": "e2e"}))
        check(r.stored is True and not r.deduplicated, "{id, stored: true, deduplicated: false}")
        return r.id
    state["pref"] = await step("store", "store(content, tags, importance, memory_type, metadata)", _store)

    async def _store_full():
        expires = (datetime.now(timezone.utc) + timedelta(days=30)).isoformat().replace("+00:00", "Z")
        r = await aw(client.store("Never deploy the billing service on Fridays.", namespace=ns, memory_type="decision",
                                  pinned=True, session_id="s-1", agent_id="agent-py", expires_at=expires, importance=0.6))
        return r.id
    state["rule"] = await step("store", "store(pinned, session_id, agent_id, expires_at)", _store_full)

    async def _store_expiry():
        past = (datetime.now(timezone.utc) - timedelta(hours=1)).isoformat().replace("+00:00", "Z")
        try:
            await aw(client.store("This one expired already.", namespace=ns + "-exp", expires_at=past))
            raise Check("a ValidationError for an expires_at in the past")
        except ValidationError as e:
            check(e.status_code == 422, "422")
        soon = (datetime.now(timezone.utc) + timedelta(seconds=2)).isoformat().replace("+00:00", "Z")
        r = await aw(client.store("This reminder expires in two seconds.", namespace=ns + "-exp", expires_at=soon))
        await asyncio.sleep(3)
        left = await aw(client.list(namespace=ns + "-exp"))
        found = await aw(client.recall("reminder expires", namespace=ns + "-exp"))
        check(left.total == 0 and found.memories == [], "the expired memory out of list and recall")
        try:
            await aw(client.get(r.id))
            raise Check("NotFoundError for the expired memory")
        except NotFoundError:
            pass
    await step("store", "store(expires_at in the past → 422; soon → gone after it)", _store_expiry)

    async def _dedup():
        r = await aw(client.store("The user prefers dark mode in every editor!", namespace=ns))
        check(r.deduplicated is True and r.id == state["pref"], "merged into the first memory, its id")
        b = await aw(client.store_batch([{"content": "The user prefers dark mode in every editor.", "namespace": ns},
                                         {"content": "Lunch is served at noon on weekdays.", "namespace": ns + "-dd"}]))
        check(b.deduplicated_count == 1 and b.ids[0] == state["pref"], "one item merged")
        i = await aw(client.ingest(text="The user prefers dark mode in every editor.", namespace=ns))
        check(i.facts_deduplicated == 1 and i.facts_stored == 0, "the ingested fact skipped as a duplicate")
    await step("store", "store / store_batch / ingest of a duplicate → deduplicated", _dedup)

    # store_batch
    async def _batch():
        r = await aw(client.store_batch([
            StoreInput(content="Deploys happen on Tuesdays after the standup.", namespace=ns, tags=["ops"]),
            {"content": "The billing service is written in Go.", "namespace": ns, "memory_type": "project"},
            {"content": "Alice owns the payments roadmap.", "namespace": ns, "metadata": {"tags": ["people"]}},
        ]))
        check(len(r.ids) == 3 and r.count == 3 and r.stored is True, "3 ids")
        return r.ids
    state["batch"] = await step("store_batch", "store_batch([StoreInput, dict, dict])", _batch) or [None, None, None]

    # store_builder
    async def _builder():
        r = await aw(client.store_builder().content("Staging runs on one small box in Falkenstein.").namespace(ns)
                     .tags(["infra"]).add_tag("staging").importance(0.4).memory_type("observation").execute())
        check(isinstance(r.id, str), "an id")
        return r.id
    state["infra"] = await step("store_builder", "store_builder()...execute()", _builder)

    # recall / search
    async def _recall():
        r = await aw(client.recall("which editor theme does the user like", namespace=ns, limit=3,
                                   include_relations=True, min_similarity=0.0))
        check(r.memories and r.memories[0].id == state["pref"], "the preference first")
        check(r.memories[0].signals is not None and isinstance(r.query_tokens, int), "_signals and query_tokens")
    await step("recall", "recall(query, namespace, limit, include_relations)", _recall)

    async def _recall_filters():
        r = await aw(client.recall("deploy", namespace=ns, tags=["ops"], memory_type="general",
                                   after="2020-01-01T00:00:00Z", limit=5))
        check([m.id for m in r.memories] == [state["batch"][0]], "only the ops memory (tags + memory_type + after)")
    await step("recall", "recall(tags, memory_type, after filters)", _recall_filters)

    async def _recall_more():
        r = await aw(client.recall("dark mode editor", namespace=ns, after="2999-01-01T00:00:00Z"))
        check(r.memories == [], "nothing created after 2999")
        r2 = await aw(client.recall("dark mode editor", namespace=ns, limit=10, min_similarity=0.99))
        check(all(m.similarity >= 0.99 for m in r2.memories) and len(r2.memories) < 6, "min_similarity filters")
        m = await aw(client.get(state["pref"]))
        check(m.access_count >= 1, f"access_count counts recalls (got {m.access_count})")
    await step("recall", "recall(after in the future, min_similarity=0.99); access_count", _recall_more)

    async def _search():
        r = await aw(client.search("who owns the payments roadmap", namespace=ns, limit=2))
        check(r.memories and r.memories[0].id == state["batch"][2], "the roadmap memory first")
    await step("search", "search(...) (alias of recall)", _search)

    # list / iter / list_all
    async def _list():
        r = await aw(client.list(namespace=ns, tags=["ops"], limit=10))
        check(r.total == 1 and [m.id for m in r.memories] == [state["batch"][0]], "exactly the ops memory")
        check(r.memories[0].metadata.get("tags") == ["ops"], "metadata.tags from the top-level tags")
        r2 = await aw(client.list(namespace=ns, limit=2, offset=1))
        check(r2.limit == 2 and r2.offset == 1 and len(r2.memories) == 2 and r2.total == 6, "page 2 of 6")
        r3 = await aw(client.list(namespace=ns, session_id="s-1", agent_id="agent-py"))
        check([m.id for m in r3.memories] == [state["rule"]], "the session/agent filter")
    await step("list", "list(namespace, tags, limit, offset, session_id, agent_id)", _list)

    async def _list_more():
        r = await aw(client.list(namespace=ns, tags=["ops", "infra"]))
        check({m.id for m in r.memories} == {state["batch"][0], state["infra"]} and r.total == 2, "any of the tags")
        r2 = await aw(client.list(namespace=ns, offset=50))
        check(r2.memories == [] and r2.total == 6, "an empty page past the end, total kept")
    await step("list", "list(tags=[a, b]) matches any; offset past the end", _list_more)

    async def _iter():
        ms = await collect(client.iter_memories(namespace=ns, batch_size=2))
        check(len(ms) == 6 and len({m.id for m in ms}) == 6, f"6 distinct memories (got {len(ms)})")
    await step("iter_memories", "iter_memories(batch_size=2)", _iter)

    async def _list_all():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ms = await collect(client.list_all(namespace=ns, batch_size=4))
        check(len(ms) == 6, f"6 memories (got {len(ms)})")
        check(any(issubclass(w.category, DeprecationWarning) for w in caught), "a DeprecationWarning")
    await step("list_all", "list_all() (deprecated)", _list_all)

    # get / update / history
    async def _get():
        m = await aw(client.get(state["rule"]))
        check(m.id == state["rule"] and m.pinned is True and m.session_id == "s-1" and m.agent_id == "agent-py"
              and m.expires_at and m.memory_type == "decision" and m.embedding_model, "the stored fields")
    await step("get", "get(id)", _get)

    async def _update():
        m = await aw(client.update(state["pref"], importance=0.9, metadata={"tags": ["ui", "editor"], "source": "e2e"}))
        check(m.importance == 0.9 and m.metadata.get("tags") == ["ui", "editor"], "the updated memory")
        m2 = await aw(client.update(state["rule"], expires_at=None, content="Never deploy the billing service on a Friday."))
        check(m2.expires_at is None and m2.content.endswith("a Friday."), "expires_at cleared, content changed")
    await step("update", "update(importance, metadata) and update(content, expires_at=None)", _update)

    async def _update_more():
        m = await aw(client.update(state["infra"], memory_type="project", namespace=ns + "-moved", pinned=True))
        check(m.memory_type == "project" and m.namespace == ns + "-moved" and m.pinned is True, "type, namespace, pin changed")
        m = await aw(client.update(state["infra"], namespace=ns, pinned=False))
        check(m.namespace == ns and m.pinned is False, "moved back, unpinned")
    await step("update", "update(memory_type, namespace, pinned)", _update_more)

    async def _history():
        h = await aw(client.get_history(state["pref"]))
        check(len(h) == 1 and h[0].changes.get("importance") == 0.9 and h[0].memory_id == state["pref"], "one entry")
        h2 = await aw(client.get_history(state["rule"]))
        check(len(h2) == 1 and "content" in h2[0].changes and "expires_at" in h2[0].changes, "the content/expiry change")
    await step("get_history", "get_history(id)", _history)

    async def _update_batch():
        r = await aw(client.update_batch([
            {"id": state["batch"][0], "importance": 0.7},
            UpdateInput(id=state["batch"][1], pinned=True),
            {"id": "00000000-0000-4000-8000-000000000000", "importance": 0.1},
        ]))
        check(r.updated == 2 and r.failed == 1 and len(r.results) == 3, "2 updated, 1 failed")
        m = await aw(client.get(state["batch"][1]))
        check(m.pinned is True, "the pin visible through get")
    await step("update_batch", "update_batch([dict, UpdateInput, unknown id])", _update_batch)

    # relations
    async def _create_relation():
        r = await aw(client.create_relation(state["batch"][1], state["rule"], "supports", metadata={"why": "e2e"}))
        check(r.source_id == state["batch"][1] and r.target_id == state["rule"] and r.relation_type == "supports", "the relation")
        return r.id
    state["rel"] = await step("create_relation", "create_relation(source, target, type, metadata)", _create_relation)

    async def _recall_relations():
        r = await aw(client.recall("billing service written in Go", namespace=ns, limit=1, include_relations=True))
        m = r.memories[0] if r.memories else None
        check(m and m.id == state["batch"][1], "the Go memory first")
        check(m.relations and m.relations[0].memory.id == state["rule"] and m.relations[0].relation_type == "supports",
              "its relation with the other memory embedded")
    await step("recall", "recall(include_relations=True) → relations[].memory", _recall_relations)

    async def _list_relations():
        rels = await aw(client.list_relations(state["batch"][1]))
        check(len(rels) == 1 and rels[0].memory.id == state["rule"] and rels[0].direction == "outgoing", "the other end, outgoing")
        back = await aw(client.list_relations(state["rule"]))
        check(len(back) == 1 and back[0].direction == "incoming" and back[0].memory.id == state["batch"][1], "incoming on the target")
    await step("list_relations", "list_relations(id) on both ends", _list_relations)

    async def _find_related():
        rels = await aw(client.find_related(state["batch"][1], relation_type="supports", direction="outgoing"))
        check(len(rels) == 1, "the supports relation")
        none = await aw(client.find_related(state["batch"][1], relation_type="contradicts"))
        check(none == [], "no contradicts relation")
    await step("find_related", "find_related(id, relation_type, direction)", _find_related)

    async def _graph():
        g = await aw(client.get_memory_graph(state["batch"][1], depth=2))
        check(set(g) == {state["batch"][1], state["rule"]}, "both ends of the relation")
    await step("get_memory_graph", "get_memory_graph(id, depth=2)", _graph)

    async def _relation_builder():  # RelationBuilder and BatchStore exist for the sync client only
        created = RelationBuilder(client, state["pref"]).relate_to(state["infra"], "related_to").create_all()
        check(len(created) == 1 and created[0]["id"], "one relation")
        state["rel2"] = created[0]["id"]
    if not is_async:
        await step("RelationBuilder", "RelationBuilder(client, id).relate_to(...).create_all()", _relation_builder)

    async def _delete_relation():
        r = await aw(client.delete_relation(state["batch"][1], state["rel"]))
        check(r.deleted is True, "deleted")
        check(await aw(client.list_relations(state["batch"][1])) == [], "no relation left")
    await step("delete_relation", "delete_relation(id, relation_id)", _delete_relation)

    # suggested / context / namespaces / stats / core / text search
    async def _suggested():
        r = await aw(client.suggested(namespace=ns, limit=10))
        check(r.total >= 1 and r.suggested and set(r.categories) >= {"stale", "fresh", "hot", "decaying"}, "suggestions with categories")
        r2 = await aw(client.suggested(namespace=ns, category="fresh", limit=10))
        check(all(s.category == "fresh" for s in r2.suggested), "only fresh ones")
    await step("suggested", "suggested(namespace, limit) and category='fresh'", _suggested)

    async def _context_budget():
        r = await aw(client.assemble_context("deploys, billing, roadmap and editors", namespace=ns, max_memories=10, max_tokens=100))
        check(r.tokens <= 100 and r.memories_used >= 1, f"at most 100 tokens (got {r.tokens} for {r.memories_used} memories)")
    await step("assemble_context", "assemble_context(max_tokens=100)", _context_budget)

    async def _context():
        r = await aw(client.assemble_context("what does the user prefer in editors", namespace=ns, max_memories=3, max_tokens=500))
        check(isinstance(r.context, str) and "dark mode" in r.context and 1 <= r.memories_used <= 3 and r.tokens > 0, "a text context")
        r2 = await aw(client.assemble_context("billing", namespace=ns, format="structured", include_metadata=True))
        check(isinstance(r2.context, dict) and isinstance(r2.context.get("memories"), list), "structured {memories}")
    await step("assemble_context", "assemble_context(text) and (structured, include_metadata)", _context)

    async def _namespaces():
        r = await aw(client.list_namespaces())
        mine = [n for n in r.namespaces if n.name == ns]
        check(mine and mine[0].count == 6 and mine[0].last_memory_at and r.total >= 1, "this namespace by name with 6 memories")
    await step("list_namespaces", "list_namespaces()", _namespaces)

    async def _stats():
        r = await aw(client.stats())
        check(r.total_memories >= 6 and r.pinned_count >= 2 and any(n.namespace == ns and n.count == 6 for n in r.by_namespace), "totals with this namespace")
    await step("stats", "stats()", _stats)

    async def _core():
        r = await aw(client.core_memories(namespace=ns, limit=5))
        ids = [m.id for m in r.memories]
        check(set(ids[:2]) == {state["rule"], state["batch"][1]} and state["pref"] in ids, "the pinned ones first, then importance 0.9")
        r2 = await aw(client.core_memories(namespace=ns, agent_id="agent-py"))
        check([m.id for m in r2.memories] == [state["rule"]] and r2.total == 1, "the agent filter")
    await step("core_memories", "core_memories(namespace, limit, agent_id)", _core)

    async def _text_search():
        r = await aw(client.text_search("billing", namespace=ns, limit=5))
        check({m.id for m in r.memories} == {state["batch"][1], state["rule"]} and r.total == 2, "the two billing memories")
        r2 = await aw(client.text_search("billing", namespace=ns, memory_type="project"))
        check([m.id for m in r2.memories] == [state["batch"][1]], "memory_type filter")
        r3 = await aw(client.text_search("deploy", namespace=ns, tags=["ops"], after="2020-01-01T00:00:00Z"))
        check([m.id for m in r3.memories] == [state["batch"][0]], "tags + after filter")
        r5 = await aw(client.text_search("billing", namespace=ns, limit=1))
        check(len(r5.memories) == 1 and r5.total == 2, f"limit=1: one memory, total of all matches 2 (got {r5.total})")
        r4 = await aw(client.text_search("billing", namespace=ns, session_id="s-1", agent_id="agent-py"))
        check([m.id for m in r4.memories] == [state["rule"]], "session_id + agent_id filter")
    await step("text_search", "text_search(q, namespace, memory_type, tags, after, session_id, agent_id)", _text_search)

    # export
    async def _export_json():
        r = await aw(client.export(format="json", namespace=ns))
        check(r.format == "json" and r.count == 6 and len(r.memories) == 6, "6 JSON rows")
    await step("export", "export(format='json')", _export_json)

    async def _export_csv():
        r = await aw(client.export(format="csv", namespace=ns))
        check(r.format == "csv" and r.count == 6, "6 CSV rows")
    await step("export", "export(format='csv')", _export_csv)

    async def _export_md():
        r = await aw(client.export(format="markdown", namespace=ns))
        check(r.format == "markdown" and r.count == 6, "6 Markdown sections")
    await step("export", "export(format='markdown')", _export_md)

    # ingest / extract / consolidate / migrate
    async def _ingest():
        r = await aw(client.ingest(messages=[{"role": "user", "content": "I switched from Vim to Helix last month."},
                                             {"role": "assistant", "content": "Noted."}], namespace=ns, auto_relate=True))
        check(len(r.memory_ids) >= 1 and r.facts_stored == len(r.memory_ids) and r.relations_created >= 0, "stored facts")
        r2 = await aw(client.ingest(text="My dentist appointment is on the 3rd of June.", namespace=ns))
        check(len(r2.memory_ids) >= 1, "a fact from text")
    await step("ingest", "ingest(messages, auto_relate) and ingest(text)", _ingest)

    async def _extract():
        r = await aw(client.extract([{"role": "user", "content": "My favourite database is SQLite."}], namespace=ns))
        check(r.facts_stored >= 1 and len(r.memory_ids) == r.facts_stored, "stored facts")
    await step("extract", "extract(messages)", _extract)

    # Two copies of one fact in one namespace: stored apart (a store in the same namespace would
    # merge at once), then one is moved next to the other.
    dup = ns + "-dup"
    try:
        keep = (await aw(client.store("The office wifi password rotates every month.", namespace=dup, importance=0.7))).id
        moved = (await aw(client.store("The office wifi password rotates every month.", namespace=dup + "-x"))).id
        await aw(client.update(moved, namespace=dup))
    except Exception as exc:  # noqa: BLE001
        keep = moved = None
        rows.append(Row(label, "consolidate", "(set-up: two copies in one namespace)", False, explain(exc)))

    async def _consolidate_dry():
        try:
            r = await aw(client.consolidate(namespace=dup, dry_run=True))
        finally:
            sent, answer = ex.sent, ex.got
            left = await aw(client.list(namespace=dup))
            ex.sent, ex.got = sent, answer + f" | afterwards list(namespace) has {left.total} memories"
        check(left.total == 2, "both copies still there after a dry run")
        check(r.clusters_found == 1 and r.memories_merged == 1 and len(r.clusters) == 1 and set(r.clusters[0].memory_ids) == {keep, moved},
              "one cluster of the two copies, one memory that would be merged (MemoClaw's dry-run example counts them too)")
    await step("consolidate", "consolidate(dry_run=True)", _consolidate_dry)

    async def _consolidate():
        try:
            r = await aw(client.consolidate(namespace=dup, min_similarity=0.9, mode="merge"))
            check(r.clusters_found == 1 and r.memories_merged == 1 and r.clusters[0].merged_into == keep, "one merged into the kept one")
        finally:
            sent, answer = ex.sent, ex.got
            left = await aw(client.list(namespace=dup))
            ex.sent, ex.got = sent, answer + f" | afterwards list(namespace) has {left.total} memor{'y' if left.total == 1 else 'ies'}"
    await step("consolidate", "consolidate()", _consolidate)

    async def _migrate():
        r = await aw(client.migrate([{"filename": "MEMORY.md", "content": "# Preferences\n- The user drinks green tea\n- Standups are at 9:30\n"}],
                                    namespace=ns + "-mig", auto_tag=True, agent_id="agent-py"))
        check(r.files_processed == 1 and r.memories_created == 2 and len(r.memory_ids) == 2, "2 memories from 1 file")
    await step("migrate", "migrate(files, auto_tag)", _migrate)

    async def _migrate_dir():
        d = tempfile.mkdtemp(prefix="memoclaw-migrate-")
        try:
            Path(d, "people.md").write_text("# People\n\nBob runs the data team.\n\nCarol is the on-call lead this week.\n")
            Path(d, "skip.txt").write_text("not markdown")
            r = await aw(client.migrate_directory(d, namespace=ns + "-mig"))
            check(r.files_processed == 1 and r.memories_created == 2, "2 memories from the .md file only")
        finally:
            shutil.rmtree(d, ignore_errors=True)
    await step("migrate_directory", "migrate_directory(dir, pattern='*.md')", _migrate_dir)

    # builders and filters
    async def _memory_builder():
        b = MemoryBuilder().content("The user's timezone is Europe/Lisbon.").namespace(ns + "-b").tags(["tz"]).importance(0.6)
        r = await aw(client.store(**b.to_dict()))
        r2 = await aw(client.store_batch([MemoryBuilder().content("The user's laptop is a ThinkPad.").namespace(ns + "-b").build()]))
        check(r.id and len(r2.ids) == 1, "stored through store(**to_dict()) and store_batch([build()])")
    await step("MemoryBuilder", "MemoryBuilder().to_dict()/build() into store/store_batch", _memory_builder)

    async def _recall_builder():
        params = RecallBuilder().query("what timezone is the user in").namespace(ns + "-b").limit(1).build()
        r = await aw(client.recall(**params))
        check(len(r.memories) == 1 and "Lisbon" in r.memories[0].content, "the timezone memory")
    await step("RecallBuilder", "client.recall(**RecallBuilder()...build())", _recall_builder)

    async def _recall_builder_tags():
        params = RecallBuilder().query("deploy schedule").namespace(ns).tags(["ops"]).build()
        r = await aw(client.recall(**params))
        check([m.id for m in r.memories] == [state["batch"][0]], "the ops memory only")
    await step("RecallBuilder", "client.recall(**RecallBuilder()...tags([...]).build())", _recall_builder_tags)

    async def _recall_query():
        q = (AsyncRecallQuery if is_async else RecallQuery)(client)
        r = await aw(q.with_query("deploy schedule").with_namespace(ns).with_tags(["ops"]).with_limit(3).with_min_similarity(0.0).execute())
        check([m.id for m in r.memories] == [state["batch"][0]], "the ops memory only")
    await step("RecallQuery", f"{'Async' if is_async else ''}RecallQuery(client)...execute()", _recall_query)

    async def _memory_filter():
        f = (AsyncMemoryFilter if is_async else MemoryFilter)(client).with_namespace(ns).with_batch_size(3)
        n = await aw(f.count())
        all_ = await aw(f.list_all())
        check(n == len(all_) and n >= 6, f"count == list_all (got {n}, {len(all_)})")
        tagged = await aw((AsyncMemoryFilter if is_async else MemoryFilter)(client).with_namespace(ns).with_tags(["infra"]).list_all())
        check([m.id for m in tagged] == [state["infra"]], "the infra memory by tag")
    await step("MemoryFilter", f"{'Async' if is_async else ''}MemoryFilter(client).count()/list_all()", _memory_filter)

    async def _batch_store():
        bs = BatchStore(client).add("Quarterly planning is in the second week of March.", tags=["planning"], namespace=ns + "-b")
        bs.add_many([{"content": "The design review happens on Thursdays.", "namespace": ns + "-b"}])
        r = bs.execute()
        check(r["count"] == 2 and r["stored"] is True, "2 stored")
        tagged = client.list(namespace=ns + "-b", tags=["planning"])
        check(tagged.total == 1, "the top-level batch tag stored as metadata.tags")
    if not is_async:
        await step("BatchStore", "BatchStore(client).add(tags=...).add_many(...).execute()", _batch_store)

    # delete
    async def _delete():
        r = await aw(client.delete(state["infra"]))
        check(r.deleted is True, "deleted")
        try:
            await aw(client.get(state["infra"]))
        except NotFoundError:
            return
        raise Check("the deleted memory to be gone")
    await step("delete", "delete(id), then get → NotFoundError", _delete)

    async def _delete_batch():
        r = await aw(client.delete_batch([state["batch"][2], "00000000-0000-4000-8000-000000000000"]))
        check(len(r) == 2 and r[0].deleted is True and r[1].deleted is False, "per-id results")
        check(await aw(client.delete_batch([])) == [], "[] for no ids")
    await step("delete_batch", "delete_batch([id, unknown id])", _delete_batch)

    async def _export_filters():
        r = await aw(client.export(namespace=ns, include_deleted=True))
        ids = {m["id"] for m in r.memories}
        check(state["infra"] in ids and state["batch"][2] in ids, "the deleted memories with include_deleted")
        r2 = await aw(client.export(namespace=ns))
        check(state["infra"] not in {m["id"] for m in r2.memories}, "no deleted memory by default")
        r3 = await aw(client.export(namespace=ns, memory_type="decision", tags=None, session_id="s-1", agent_id="agent-py"))
        check([m["id"] for m in r3.memories] == [state["rule"]], "memory_type + session + agent filters")
        r4 = await aw(client.export(namespace=ns, tags=["ops"], after="2020-01-01T00:00:00Z", before="2999-01-01T00:00:00Z"))
        check([m["id"] for m in r4.memories] == [state["batch"][0]], "tags + after + before filters")
    await step("export", "export(include_deleted, memory_type, tags, session_id, agent_id, before, after)", _export_filters)

    # errors
    async def _not_found():
        try:
            await aw(client.get("00000000-0000-4000-8000-000000000000"))
        except NotFoundError as e:
            check(e.status_code == 404 and e.code == "NOT_FOUND" and e.suggestion, "NOT_FOUND with a suggestion")
            return
        raise Check("NotFoundError")
    await step("errors", "get(unknown) → NotFoundError", _not_found)

    async def _validation():
        try:
            await aw(client.store("x" * 9000, namespace=ns))
        except ValidationError as e:
            check(e.status_code == 422 and e.code == "VALIDATION_ERROR" and (e.details or {}).get("max_length") == 8192, "VALIDATION_ERROR with max_length")
            return
        raise Check("ValidationError")
    await step("errors", "store(9000 chars) → ValidationError", _validation)

    async def _conflict():
        locked = await aw(client.store("This audit record must never change.", namespace=ns, immutable=True))
        try:
            await aw(client.delete(locked.id))
        except APIError as e:
            check(e.status_code == 409 and e.code, "409 with a code")
            return
        raise Check("an APIError 409")
    await step("errors", "delete(immutable) → APIError 409", _conflict)

    async def _lock():
        m = await aw(client.update(state["pref"], immutable=True))
        check(m.immutable is True, "immutable: true")
        try:
            await aw(client.update(state["pref"], importance=0.1))
        except APIError as e:
            check(e.status_code == 409, "409")
            return
        raise Check("an APIError 409 on updating a locked memory")
    await step("update", "update(immutable=True), then update → APIError 409", _lock)

    async def _immutable_batches():
        r = await aw(client.update_batch([{"id": state["pref"], "importance": 0.2}]))
        check(r.updated == 0 and r.failed == 1 and r.results and r.results[0].get("updated") is False, "the locked memory skipped")
        d = await aw(client.delete_batch([state["pref"]]))
        check(len(d) == 1 and d[0].deleted is False, "the locked memory not deleted")
        m = await aw(client.get(state["pref"]))
        check(m.importance == 0.9, "unchanged")
    await step("update_batch", "update_batch / delete_batch on an immutable memory", _immutable_batches)

    if is_async:
        async def _gather():
            rs = await asyncio.gather(*(client.store(f"Concurrent fact number {i}: the build {i} took {i + 3} minutes.", namespace=ns + "-conc") for i in range(10)))
            check(len({r.id for r in rs}) == 10, "10 distinct ids")
            page = await client.list(namespace=ns + "-conc", limit=20)
            check(page.total == 10, f"10 listed (got {page.total})")
        await step("store", "10 concurrent store() with asyncio.gather", _gather)

    # hooks (the recording hooks are already on; add a transforming one)
    async def _hooks():
        seen: list[str] = []
        client.on_before_request(lambda m, p, b: (seen.append(f"before {m} {p}"), None)[1])
        client.on_after_response(lambda m, p, d: {**d, "_hooked": True} if isinstance(d, dict) and p == "/v1/stats" else None)
        client.on_error(lambda m, p, e: seen.append(f"error {type(e).__name__}"))
        await aw(client.stats())
        try:
            await aw(client.get("00000000-0000-4000-8000-000000000000"))
        except NotFoundError:
            pass
        check("before GET /v1/stats" in seen and "error NotFoundError" in seen, "before and error hooks called")
    await step("hooks", "on_before_request / on_after_response / on_error", _hooks)
    return state


async def run_all() -> None:
    key = "0x" + secrets.token_hex(32)
    wallet = Account.from_key(key).address
    ex = Exchange()
    sync_client = MemoClaw(key, base_url=URL, max_retries=0)
    sync_client.on_before_request(ex.before).on_after_response(ex.after).on_error(ex.error)
    with sync_client:
        sync_state = await scenario("sync", sync_client, ex, wallet)

    key2 = "0x" + secrets.token_hex(32)
    ex2 = Exchange()
    async_client = AsyncMemoClaw(key2, base_url=URL, max_retries=0)
    async_client.on_before_request(ex2.before).on_after_response(ex2.after).on_error(ex2.error)
    async with async_client:
        await scenario("async", async_client, ex2, Account.from_key(key2).address)

        async def isolation() -> None:
            other = sync_state.get("rule")
            check(other, "a memory of the sync wallet")
            try:
                await async_client.get(other)
                raise Check("NotFoundError for another wallet's memory")
            except NotFoundError:
                pass
            try:
                await async_client.update(other, importance=0.1)
                raise Check("NotFoundError on updating another wallet's memory")
            except NotFoundError:
                pass
            r = await async_client.text_search("billing")
            check(other not in {m.id for m in r.memories}, "no other wallet's memory in search")
        try:
            await isolation()
            rows.append(Row("async", "get", "another wallet's memory → NotFoundError (get, update, search)", True))
        except Exception as exc:  # noqa: BLE001
            rows.append(Row("async", "get", "another wallet's memory → NotFoundError (get, update, search)", False, explain(exc)))

    # configuration: ~/.memoclaw/config.json written by `memoclaw init`, and the environment
    cfg_dir = tempfile.mkdtemp(prefix="memoclaw-config-")
    try:
        key3 = "0x" + secrets.token_hex(32)
        cfg = Path(cfg_dir, "config.json")
        cfg.write_text(json.dumps({"wallet": Account.from_key(key3).address, "privateKey": key3, "url": URL}))
        try:
            with MemoClaw(config_path=cfg, max_retries=0) as c:
                s = c.status()
            ok = s.wallet.lower() == Account.from_key(key3).address.lower()
            rows.append(Row("sync", "config", "MemoClaw(config_path=...) → status()", ok, "" if ok else "another wallet"))
        except Exception as exc:  # noqa: BLE001
            rows.append(Row("sync", "config", "MemoClaw(config_path=...) → status()", False, explain(exc)))
        saved = {k: os.environ.get(k) for k in ("MEMOCLAW_PRIVATE_KEY", "MEMOCLAW_URL")}
        os.environ["MEMOCLAW_PRIVATE_KEY"], os.environ["MEMOCLAW_URL"] = key3, URL
        try:
            async with AsyncMemoClaw(config_path=Path(cfg_dir, "absent.json"), max_retries=0) as c:
                s = await c.status()
            ok = s.wallet.lower() == Account.from_key(key3).address.lower()
            rows.append(Row("async", "config", "AsyncMemoClaw() from MEMOCLAW_PRIVATE_KEY/MEMOCLAW_URL → status()", ok, "" if ok else "another wallet"))
        except Exception as exc:  # noqa: BLE001
            rows.append(Row("async", "config", "AsyncMemoClaw() from MEMOCLAW_PRIVATE_KEY/MEMOCLAW_URL → status()", False, explain(exc)))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    finally:
        shutil.rmtree(cfg_dir, ignore_errors=True)


async def expect_error(label: str, step: str, call: Any, error_type: type, status: int, code: str, more: Any = None) -> None:
    """One row: `call()` must raise `error_type` with this status and code (and `more(e)` must say nothing is wrong)."""
    try:
        await call()
        rows.append(Row(label, "errors", step, False, "no error"))
    except error_type as e:  # type: ignore[misc]
        problem = "" if (e.status_code, e.code) == (status, code) else explain(e)
        if not problem and more:
            extra = await more(e)
            problem = f"{explain(e)}; {extra}" if extra else ""
        rows.append(Row(label, "errors", step, not problem, problem))
    except Exception as exc:  # noqa: BLE001
        rows.append(Row(label, "errors", step, False, explain(exc)))


async def run_limits() -> None:
    """402, 429 and 401, each from an engram of its own (only when this script starts engram)."""
    url, proc, data = start_engram(FREE_TIER_CALLS="2", RATE_LIMIT_PER_MINUTE="20")
    started.append((proc, data))
    url_other_prefix, proc, data = start_engram(AUTH_MESSAGE_PREFIX="service-auth")
    started.append((proc, data))
    from memoclaw import AuthenticationError, PaymentRequiredError, RateLimitError

    for label, cls in (("sync", MemoClaw), ("async", AsyncMemoClaw)):
        key = "0x" + secrets.token_hex(32)
        client = cls(key, base_url=url, max_retries=0)
        async def paid_calls() -> None:
            for i in range(2):
                await aw(client.store(f"Paid call number {i} from the {label} client.", namespace="limits"))
            await aw(client.store("One paid call too many.", namespace="limits"))

        async def free_tier_used_up(e: Exception) -> str:
            s = await aw(client.status())
            return "" if s.free_tier_remaining == 0 and s.free_tier_used == 2 else f"status {s}"

        async def many_calls() -> None:
            for _ in range(25):
                await aw(client.stats())

        await expect_error(label, "3rd paid call with FREE_TIER_CALLS=2 → PaymentRequiredError", paid_calls,
                           PaymentRequiredError, 402, "PAYMENT_REQUIRED", free_tier_used_up)
        await expect_error(label, "25 calls with RATE_LIMIT_PER_MINUTE=20 → RateLimitError", many_calls,
                           RateLimitError, 429, "RATE_LIMITED")
        await aw(client.close())

        other = cls(key, base_url=url_other_prefix, max_retries=0)
        await expect_error(label, "another AUTH_MESSAGE_PREFIX → AuthenticationError", lambda: aw(other.stats()),
                           AuthenticationError, 401, "AUTH_ERROR")
        await aw(other.close())


try:
    asyncio.run(run_all())
    if not args.url:
        asyncio.run(run_limits())
    else:
        print("(402, 429 and 401 are checked only when this script starts engram itself)\n")
finally:
    for proc, data in started:
        if proc.poll() is not None:  # it died during the run: say how, before its folder goes
            tail = Path(data, "engram.log").read_text(errors="replace").splitlines()[-15:]
            print(f"engram ({' '.join(map(str, proc.args))} in {args.engram_dir}) exited during the run with code "
                  f"{proc.returncode} (negative: killed by that signal); its log ends:\n  " + "\n  ".join(tail) + "\n")
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(data, ignore_errors=True)

# ── report ───────────────────────────────────────────────────────────────────

methods: dict[tuple[str, str], bool] = {}
for r in rows:
    methods[(r.client, r.method)] = methods.get((r.client, r.method), True) and r.ok

w_client = max(len(r.client) for r in rows)
w_method = max(len(r.method) for r in rows)
print(f"{'client':<{w_client}}  {'method':<{w_method}}  result  step / detail")
for r in rows:
    mark = "ok  " if r.ok else ("sdk " if r.known else "FAIL")
    print(f"{r.client:<{w_client}}  {r.method:<{w_method}}  {mark}    {r.step}")
    if not r.ok:
        print(f"{'':<{w_client}}  {'':<{w_method}}          ↳ {r.detail}")
        if r.known:
            print(f"{'':<{w_client}}  {'':<{w_method}}          ↳ SDK side: {r.known}")
ok_methods = sum(1 for v in methods.values() if v)
ok_steps = sum(1 for r in rows if r.ok)
sdk_side = sum(1 for r in rows if not r.ok and r.known)
print(f"\nMemoClaw Python SDK {memoclaw.__version__} against {URL}: {ok_methods} of {len(methods)} methods work "
      f"(sync and async counted apart; a method works when all its steps do), {ok_steps} of {len(rows)} steps; "
      f"{sdk_side} of the {len(rows) - ok_steps} failed steps are SDK-side (marked sdk)")
sys.exit(len(rows) - ok_steps - sdk_side)
