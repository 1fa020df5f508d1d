"""memoryd's one way in: every operation the CLI, the daemon's socket server and the MCP server carry out.

    CLI, MCP server ── MemoryApi.store(...) ──┬── InProcessTransport ──────────────────────────┐
                                              └── DaemonTransport ── socket ── daemon          │
                                                  (runner.py: MemoryApi.serve("store"), here) ─┤
                                                                                                ▼
                          STORE = Operation("store", lazy("ops_core", "store")) ── Engine.memory() ── tiers/, sync/

`connect(config)` binds the API to the daemon when its socket exists, else to this process (see
daemon/transport.py for when a daemon call runs here after all). OPERATIONS, the table below, is the one
map from an operation's wire name to the function doing it; the socket serves the rows marked served.
Results are the JSON-able dicts the wire carries.
"""
from __future__ import annotations

from typing import Any, Iterable, NotRequired, TypedDict

from memoryd.tiers.base.config import Config

from memoryd.daemon.errors import UnknownOperationError
from memoryd.daemon.transport import DaemonTransport, InProcessTransport, Operation, Transport, lazy

Result = dict[str, Any]  # the shapes that grow with features stay plain dicts; the small fixed ones are below


class Pong(TypedDict):
    pong: bool


class Initialised(TypedDict):
    agent_id: str
    dir: str
    key_fingerprint: str
    cold_count: int | None
    recovery_key: NotRequired[str]  # a new agent's recovery key: in this one answer, never again


class Found(TypedDict):
    results: list[dict[str, Any]]  # ranked entries: id, text, category, tier, score, reason, ...
    warnings: list[str]


class HotShown(TypedDict):
    agent_id: str
    hot: dict[str, Any]
    markdown: str


class TreeShown(TypedDict):
    agent_id: str
    tree: dict[str, Any]
    text: str


class Urls(TypedDict):
    urls: list[str]

PING = Operation("ping", lazy("ops_core", "ping"))
INIT = Operation("init", lazy("ops_core", "init"))
STORE = Operation("store", lazy("ops_core", "store"))
RETRIEVE = Operation("retrieve", lazy("ops_core", "retrieve"))
CONSOLIDATE = Operation("consolidate", lazy("ops_core", "consolidate"))
FORGET = Operation("forget", lazy("ops_core", "forget"))
FORGET_VERIFY = Operation("forget_verify", lazy("ops_shred", "forget_verify"), served=False)  # this process's keys
URLS = Operation("urls", lazy("ops_core", "urls"), served=False)
INGEST_DAILY = Operation("ingest_daily", lazy("ops_core", "ingest_daily"))
INGEST_TRANSCRIPT = Operation("ingest_transcript", lazy("ops_core", "ingest_transcript"))
EXPORT = Operation("export", lazy("ops_core", "export_to"), served=False)  # paths are the caller's: its working directory
IMPORT = Operation("import", lazy("ops_core", "import_from"), served=False)
STATUS = Operation("status", lazy("ops_status", "status"))
SYNC = Operation("sync", lazy("forget_derived", "sync_and_refresh"))  # ops_sync.sync, then a pulled forget's derived files
RESTORE = Operation("restore", lazy("ops_sync", "restore"), served=False)  # the key comes from this process (file, env)
RESTORE_VERSIONS = Operation("restore_versions", lazy("ops_sync", "restore_versions"), served=False)
KEY_SHOW = Operation("key_show", lazy("ops_sync", "key_show"), served=False)
KEY_EXPORT = Operation("key_export", lazy("ops_sync", "key_export"), served=False)
KEY_IMPORT = Operation("key_import", lazy("ops_sync", "key_import"), served=False)
# devices and key epochs: keys are this process's (key store, codes, the recovery key), never the socket's
DEVICE_LIST = Operation("device_list", lazy("ops_devices", "device_list"), served=False)
DEVICE_ADD = Operation("device_add", lazy("ops_devices", "device_add"), served=False)
DEVICE_REVOKE = Operation("device_revoke", lazy("ops_devices", "device_revoke"), served=False)
DEVICE_RENAME = Operation("device_rename", lazy("ops_devices", "device_rename"), served=False)
KEY_ROTATE = Operation("key_rotate", lazy("ops_devices", "key_rotate"), served=False)
KEY_RECOVERY = Operation("key_recovery", lazy("ops_devices", "key_recovery"), served=False)
# single database → a namespace per agent: an operator's command, with this process's tokens
NAMESPACE_MIGRATE = Operation("namespace_migrate", lazy("ops_sync", "namespace_migrate"), served=False)
NAMESPACE_SHOW = Operation("namespace_show", lazy("ops_sync", "namespace_show"), served=False)
NAMESPACE_KEYS = Operation("namespace_keys", lazy("ops_sync", "namespace_keys"), served=False)
HOT_CHANGE = Operation("hot_change", lazy("ops_hot", "hot_change"))
HOT_SHOW = Operation("hot_show", lazy("ops_hot", "hot_show"))
TREE_SHOW = Operation("tree_show", lazy("ops_hot", "tree_show"))
TREE_VIEW = Operation("tree_view", lazy("ops_hot", "tree_view"), served=False)
TREE_ADD = Operation("tree_add", lazy("ops_hot", "tree_add"), served=False)
TREE_REMOVE = Operation("tree_remove", lazy("ops_hot", "tree_remove"), served=False)
TREE_PRUNE = Operation("tree_prune", lazy("ops_hot", "tree_prune"), served=False)
RENDER = Operation("render", lazy("ops_hot", "render"), served=False)  # files named relative to the caller
OPENCLAW_SYNC = Operation("openclaw_sync", lazy("ops_openclaw", "openclaw_sync"))
OPENCLAW_STATUS = Operation("openclaw_status", lazy("ops_openclaw", "openclaw_status"))
FLUSH = Operation("flush", lazy("ops_openclaw", "flush"))
ROUTE_SHOW = Operation("route_show", lazy("ops_route", "route_show"), served=False)  # its own file lock
ROUTE_SET = Operation("route_set", lazy("ops_route", "route_set"), served=False)
EMBED = Operation("embed", lazy("ops_embed", "embed"))
# Claude Code and Codex (daemon/hooks_*.py): a session file taken, all of a harness, where each stands, context
HARNESS_TAKE = Operation("harness_take", lazy("hooks_ops", "harness_take"))
HARNESS_SYNC = Operation("harness_sync", lazy("hooks_ops", "harness_sync"))
HARNESS_STATUS = Operation("harness_status", lazy("hooks_ops", "harness_status"))
HARNESS_CONTEXT = Operation("harness_context", lazy("hooks_context", "harness_context"))
# knowledge: run in the calling process under the agent's lock (the socket's wire is unchanged)
ENTITY_LIST = Operation("entity_list", lazy("ops_knowledge", "entity_list"), served=False)
ENTITY_SHOW = Operation("entity_show", lazy("ops_knowledge", "entity_show"), served=False)
ENTITY_REFRESH = Operation("entity_refresh", lazy("ops_knowledge", "entity_refresh"), served=False)
REFLECT = Operation("reflect", lazy("ops_knowledge", "reflect"), served=False)
DIGEST = Operation("digest", lazy("ops_knowledge", "digest"), served=False)
KNOWLEDGE_JOB = Operation("knowledge_job", lazy("ops_knowledge", "knowledge_job"), served=False)  # the daemon's daily job
UNSEAL = Operation("unseal", lazy("ops_seal", "unseal"), served=False)  # runs in the caller, as tree_add does
TREE_RESTRUCTURE = Operation("tree_restructure", lazy("ops_seal", "tree_restructure"), served=False)
# the review queue (tiers/knowledge/review.py): in the calling process under the agent's lock, like knowledge
REVIEW_LIST = Operation("review_list", lazy("ops_review", "review_list"), served=False)
REVIEW_RESOLVE = Operation("review_resolve", lazy("ops_review", "review_resolve"), served=False)
REVIEW_UNDO = Operation("review_undo", lazy("ops_review", "review_undo"), served=False)

# wire name → operation: the only table there is (the daemon adds `daemon` and `mcp_attach`, which are about itself)
OPERATIONS: dict[str, Operation] = {op.name: op for op in (
    PING, INIT, STORE, RETRIEVE, CONSOLIDATE, FORGET, URLS, INGEST_DAILY, INGEST_TRANSCRIPT, EXPORT, IMPORT,
    STATUS, SYNC, RESTORE, RESTORE_VERSIONS, KEY_SHOW, KEY_EXPORT, KEY_IMPORT,
    DEVICE_LIST, DEVICE_ADD, DEVICE_REVOKE, DEVICE_RENAME, KEY_ROTATE, KEY_RECOVERY,
    NAMESPACE_MIGRATE, NAMESPACE_SHOW, NAMESPACE_KEYS,
    HOT_CHANGE, HOT_SHOW, TREE_SHOW, TREE_VIEW, TREE_ADD, TREE_REMOVE, TREE_PRUNE, RENDER,
    OPENCLAW_SYNC, OPENCLAW_STATUS, FLUSH, ROUTE_SHOW, ROUTE_SET, EMBED, FORGET_VERIFY,
    ENTITY_LIST, ENTITY_SHOW, ENTITY_REFRESH, REFLECT, DIGEST, KNOWLEDGE_JOB,
    UNSEAL, TREE_RESTRUCTURE, REVIEW_LIST, REVIEW_RESOLVE, REVIEW_UNDO,
    HARNESS_TAKE, HARNESS_SYNC, HARNESS_STATUS, HARNESS_CONTEXT,
)}


def lookup(name: str, *, served: bool = False) -> Operation:
    """The operation called `name` (with `served`: only one the daemon's socket serves)."""
    op = OPERATIONS.get(name)
    if op is None or (served and not op.served):
        raise UnknownOperationError.named(name)
    return op


def _params(**params: Any) -> dict[str, Any]:
    """An operation's params as the wire carries them: an option not given is left out."""
    return {k: v for k, v in params.items() if v is not None}


class MemoryApi:
    """Typed, keyword-only calls of every operation, carried out by one transport."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    def call(self, name: str, params: dict[str, Any]) -> Any:
        """An operation by its wire name (UnknownOperationError when there is none)."""
        return self.transport.call(lookup(name), params)

    def serve(self, name: str, params: dict[str, Any]) -> Any:
        """An operation asked for over the daemon's socket: only the rows marked served."""
        return self.transport.call(lookup(name, served=True), params)

    def close(self) -> None:
        self.transport.close()

    # -- memories --------------------------------------------------------------------------------
    def ping(self) -> Pong:
        return self.transport.call(PING, {})

    def init(self, *, agent_id: str) -> Initialised:
        return self.transport.call(INIT, _params(agent_id=agent_id))

    def store(self, *, agent_id: str, text: str, category: str, importance: float | None = None,
              metadata: dict[str, Any] | None = None, kind: str | None = None, confidence: float | None = None,
              basis: str | None = None, supersedes: list[str] | None = None) -> Result:
        """Distil and store one memory in warm (of `kind`, with a belief's or opinion's `confidence`); the stored
        entry, or the held memory that absorbed it (`merged`). `supersedes`: ids of memories it replaces (the
        agent's own judgement: superseded_how "agent"); an unknown id stores nothing (UsageError)."""
        return self.transport.call(STORE, _params(agent_id=agent_id, text=text, category=category,
                                                  importance=importance, metadata=metadata, kind=kind,
                                                  confidence=confidence, basis=basis,
                                                  supersedes=list(supersedes) if supersedes else None))

    def retrieve(self, *, agent_id: str, query: str = "", limit: int = 10, url: str | None = None,
                 entity: str | None = None, since: str | None = None, until: str | None = None,
                 paths: dict[str, float] | None = None, kind: str | None = None, history: bool = False) -> Found:
        """{"results": ranked entries, "warnings"}; counts as access (reinforcement). `kind`: only memories of
        that kind; `history`: superseded memories too, after the current ones."""
        return self.transport.call(RETRIEVE, _params(agent_id=agent_id, query=query, limit=limit, url=url,
                                                     entity=entity, since=since, until=until, paths=paths,
                                                     kind=kind, history=history or None))

    def consolidate(self, *, agent_id: str, mode: str = "quick") -> Result:
        return self.transport.call(CONSOLIDATE, _params(agent_id=agent_id, mode=mode))

    def forget(self, *, agent_id: str, memory_id: str | None = None, days: float | None = None,
               shred: bool | None = None, new_recovery: bool | None = None) -> Result:
        """One memory by id, or everything of the last `days`, from every tier and the cloud copy;
        `shred` (default: [sync] shred_forget) also destroys every key that could open its old ciphertexts;
        `new_recovery`: a shred may re-issue the recovery key (returned once: only for a person's terminal)."""
        return self.transport.call(FORGET, _params(agent_id=agent_id, id=memory_id, days=days, shred=shred,
                                                   new_recovery=new_recovery))

    def forget_verify(self, *, agent_id: str, memory_id: str) -> Result:
        """Per place (local index, warm, hot, critical state, the server, the key store): what is left of it."""
        return self.transport.call(FORGET_VERIFY, _params(agent_id=agent_id, id=memory_id))

    def urls(self, *, agent_id: str) -> Urls:
        return self.transport.call(URLS, _params(agent_id=agent_id))

    def ingest_daily(self, *, agent_id: str | None = None, date: str | None = None, all_days: bool = False) -> Result:
        """`agent_id` None: the agent the workspace feeds (its route), `default` the first time."""
        return self.transport.call(INGEST_DAILY, _params(agent_id=agent_id, date=date, all=all_days))

    def route_show(self) -> Result:
        """Which workspace and which OpenClaw agents feed which agent (tiers/ingest/routing.py)."""
        return self.transport.call(ROUTE_SHOW, {})

    def route_set(self, *, kind: str, agent_id: str, name: str | None = None) -> Result:
        """Send a workspace (`name`: its path, default the configured one) or an OpenClaw agent to `agent_id`."""
        return self.transport.call(ROUTE_SET, _params(kind=kind, name=name, agent_id=agent_id))

    def ingest_transcript(self, *, agent_id: str, path: str) -> Result:
        return self.transport.call(INGEST_TRANSCRIPT, _params(agent_id=agent_id, path=path))

    def export_to(self, *, agent_id: str, file: str) -> Result:
        return self.transport.call(EXPORT, _params(agent_id=agent_id, file=file))

    def import_from(self, *, agent_id: str, file: str) -> Result:
        """{"counts": per kind, "warnings"}."""
        return self.transport.call(IMPORT, _params(agent_id=agent_id, file=file))

    def embed(self, *, agent_id: str, limit: int | None = None, rebuild: bool = False) -> Result:
        return self.transport.call(EMBED, _params(agent_id=agent_id, limit=limit, rebuild=rebuild))

    # -- hot memory and the tree -----------------------------------------------------------------
    def hot_change(self, *, agent_id: str, kind: str, key: str | None = None, value: str | None = None,
                   name: str | None = None, description: str | None = None, status: str | None = None,
                   text: str | None = None, category: str | None = None,
                   importance: float | None = None) -> Result:
        """Add or update one hot item of `kind` (identity, profile, project, event, task, lesson)."""
        return self.transport.call(HOT_CHANGE, _params(
            agent_id=agent_id, kind=kind, key=key, value=value, name=name, description=description, status=status,
            text=text, category=category, importance=importance))

    def hot_show(self, *, agent_id: str) -> HotShown:
        return self.transport.call(HOT_SHOW, _params(agent_id=agent_id))

    def tree_show(self, *, agent_id: str) -> TreeShown:
        """The tree and its text with warm counts."""
        return self.transport.call(TREE_SHOW, _params(agent_id=agent_id))

    def tree_view(self, *, agent_id: str, cold: bool) -> Result:
        """The tree and, with `cold`, its text with warm and cold counts."""
        return self.transport.call(TREE_VIEW, _params(agent_id=agent_id, cold=cold))

    def tree_add(self, *, agent_id: str, path: str, description: str = "") -> Result:
        return self.transport.call(TREE_ADD, _params(agent_id=agent_id, path=path, description=description))

    def tree_remove(self, *, agent_id: str, path: str) -> Result:
        return self.transport.call(TREE_REMOVE, _params(agent_id=agent_id, path=path))

    def tree_prune(self, *, agent_id: str) -> Result:
        return self.transport.call(TREE_PRUNE, _params(agent_id=agent_id))

    def tree_restructure(self, *, agent_id: str, dry_run: bool = False, undo: bool = False) -> Result:
        """Propose and apply a restructure of the tree (or only propose it, or undo the last one)."""
        return self.transport.call(TREE_RESTRUCTURE, _params(agent_id=agent_id, dry_run=dry_run or None,
                                                             undo=undo or None))

    def unseal(self, *, agent_id: str, summary_id: str) -> Result:
        """A sealed summary's members back to plain rank; the summary forgotten."""
        return self.transport.call(UNSEAL, _params(agent_id=agent_id, id=summary_id))

    def render(self, *, agent_id: str | None = None, targets: Iterable[str] = (),
               project_dir: str | None = None) -> Result:
        return self.transport.call(RENDER, _params(agent_id=agent_id, targets=list(targets),
                                                   project_dir=project_dir))

    # -- status, sync, restore, keys -------------------------------------------------------------
    def status(self, *, agent_id: str | None = None, remote: bool = False) -> Result:
        """One agent, or every agent of this device; the daemon adds its own state under "daemon"."""
        return self.transport.call(STATUS, _params(agent_id=agent_id, remote=remote))

    def sync(self, *, agent_id: str, force: bool = False, drain: bool = False) -> Result:
        return self.transport.call(SYNC, _params(agent_id=agent_id, force=force, drain=drain))

    def restore(self, *, agent_id: str, key_file: str | None = None, force: bool = False,
                at: str | None = None, code: str | None = None, recovery_key: str | None = None,
                name: str | None = None) -> Result:
        return self.transport.call(RESTORE, _params(agent_id=agent_id, key_file=key_file, force=force, at=at,
                                                    code=code, recovery_key=recovery_key, name=name))

    def restore_versions(self, *, agent_id: str) -> Result:
        return self.transport.call(RESTORE_VERSIONS, _params(agent_id=agent_id))

    def key_show(self, *, agent_id: str) -> Result:
        return self.transport.call(KEY_SHOW, _params(agent_id=agent_id))

    def key_export(self, *, agent_id: str) -> Result:
        return self.transport.call(KEY_EXPORT, _params(agent_id=agent_id))

    def key_import(self, *, agent_id: str, recovery: str, force: bool = False) -> Result:
        return self.transport.call(KEY_IMPORT, _params(agent_id=agent_id, recovery=recovery, force=force))

    def key_rotate(self, *, agent_id: str, reseal: bool = False, resume: bool = False) -> Result:
        return self.transport.call(KEY_ROTATE, _params(agent_id=agent_id, reseal=reseal, resume=resume))

    def key_recovery(self, *, agent_id: str, new: bool = False) -> Result:
        return self.transport.call(KEY_RECOVERY, _params(agent_id=agent_id, new=new))

    def namespace_migrate(self, *, agents: list[str] | None = None) -> Result:
        return self.transport.call(NAMESPACE_MIGRATE, _params(agents=agents or None))

    def namespace_show(self, *, agent_id: str) -> Result:
        return self.transport.call(NAMESPACE_SHOW, _params(agent_id=agent_id))

    def namespace_keys(self, *, agent_id: str, jwt_keys: str | None = None, create: bool = False) -> Result:
        return self.transport.call(NAMESPACE_KEYS, _params(agent_id=agent_id, jwt_keys=jwt_keys, create=create))

    # -- devices ---------------------------------------------------------------------------------
    def device_list(self, *, agent_id: str) -> Result:
        return self.transport.call(DEVICE_LIST, _params(agent_id=agent_id))

    def device_add(self, *, agent_id: str, code: str | None = None, recovery_key: str | None = None,
                   name: str | None = None) -> Result:
        return self.transport.call(DEVICE_ADD, _params(agent_id=agent_id, code=code, recovery_key=recovery_key,
                                                       name=name))

    def device_revoke(self, *, agent_id: str, device: str) -> Result:
        return self.transport.call(DEVICE_REVOKE, _params(agent_id=agent_id, device=device))

    def device_rename(self, *, agent_id: str, device: str, name: str) -> Result:
        return self.transport.call(DEVICE_RENAME, _params(agent_id=agent_id, device=device, name=name))

    # -- knowledge: entities, reflect, the daily digest ------------------------------------------
    def entity_list(self, *, agent_id: str, limit: int | None = None) -> Result:
        """{"entities": hottest first (name, type, hotness, state, mentions, last_seen), "total", "warnings"}."""
        return self.transport.call(ENTITY_LIST, _params(agent_id=agent_id, limit=limit))

    def entity_show(self, *, agent_id: str, name: str) -> Result:
        """One entity: hotness, facts, beliefs, opinions (with confidence), summaries, timeline, page."""
        return self.transport.call(ENTITY_SHOW, _params(agent_id=agent_id, name=name))

    def entity_refresh(self, *, agent_id: str, rebuild: bool = False) -> Result:
        return self.transport.call(ENTITY_REFRESH, _params(agent_id=agent_id, rebuild=rebuild or None))

    def reflect(self, *, agent_id: str, since: str | None = None) -> Result:
        """Write bank/entities/<slug>.md per active entity and bank/opinions.md."""
        return self.transport.call(REFLECT, _params(agent_id=agent_id, since=since))

    def digest(self, *, agent_id: str, date: str | None = None) -> Result:
        """Build and store the day's digest (a summary memory; a re-run replaces it)."""
        return self.transport.call(DIGEST, _params(agent_id=agent_id, date=date))

    # -- the review queue: questions the knowledge rules cannot decide --------------------------
    def review_list(self, *, agent_id: str) -> Result:
        """{"questions": open ones, oldest first (id, kind, why, created_at, members: id, text, date, kind)}."""
        return self.transport.call(REVIEW_LIST, _params(agent_id=agent_id))

    def review_resolve(self, *, agent_id: str, question_id: str, action: str) -> Result:
        """Answer one question: current, both, merge or dismiss (logged, synced with the memories, undoable)."""
        return self.transport.call(REVIEW_RESOLVE, _params(agent_id=agent_id, id=question_id, action=action))

    def review_undo(self, *, agent_id: str, question_id: str) -> Result:
        """Take an answer back: the members' metadata as before, the question open again."""
        return self.transport.call(REVIEW_UNDO, _params(agent_id=agent_id, id=question_id))

    # -- OpenClaw --------------------------------------------------------------------------------
    def openclaw_sync(self, *, openclaw_agent: str | None = None, agent_id: str | None = None,
                      close_open: bool = True, parts: Iterable[str] | None = None) -> Result:
        return self.transport.call(OPENCLAW_SYNC, _params(
            openclaw_agent=openclaw_agent, agent_id=agent_id, close_open=close_open,
            parts=list(parts) if parts is not None else None))

    def openclaw_status(self, *, agent_id: str | None = None) -> Result:
        return self.transport.call(OPENCLAW_STATUS, _params(agent_id=agent_id))

    def flush(self, *, session: str, agent_id: str | None = None) -> Result:
        """Ingest one conversation (a transcript or a session store) up to now."""
        return self.transport.call(FLUSH, _params(session=session, agent_id=agent_id))


    # -- Claude Code and Codex -----------------------------------------------------------------------
    def harness_take(self, *, harness: str, path: str, cwd: str | None = None, hook_agent: str | None = None) -> Result:
        """What is new in one session file (a hook's transcript_path), into the agent its project feeds."""
        return self.transport.call(HARNESS_TAKE, _params(harness=harness, path=path, cwd=cwd, hook_agent=hook_agent))

    def harness_sync(self, *, harness: str, hook_agent: str | None = None) -> Result:
        return self.transport.call(HARNESS_SYNC, _params(harness=harness, hook_agent=hook_agent))

    def harness_status(self, *, agent_id: str | None = None) -> Result:
        return self.transport.call(HARNESS_STATUS, _params(agent_id=agent_id))

    def harness_context(self, *, harness: str, cwd: str, hook_agent: str | None = None,
                        source: str | None = None) -> Result:
        """{"agent_id", "context": text ≤ [harness] context_chars, "parts"}: SessionStart's additionalContext."""
        return self.transport.call(HARNESS_CONTEXT, _params(harness=harness, cwd=cwd, hook_agent=hook_agent,
                                                            source=source))


def in_process(config: Config, *, shared: bool = False) -> MemoryApi:
    """The API running every operation in this process. `shared`: one local-index connection for all of
    them (the daemon, a benchmark), closed by close(); else one per operation (a CLI command)."""
    from memoryd.daemon.engine import Engine

    return MemoryApi(InProcessTransport(Engine(config, shared=shared)))


def connect(config: Config, *, follow: bool = False) -> MemoryApi:
    """The API for a client: through the daemon when its socket exists, else in this process.
    `follow`: a long-lived client (the MCP server) looks for the daemon at every call instead, as one
    may start or stop while it runs."""
    if not follow and not config.socket_path.exists():  # no socket file, no daemon: skip the client entirely
        return in_process(config)

    def local() -> InProcessTransport:
        from memoryd.daemon.engine import Engine

        return InProcessTransport(Engine(config))

    return MemoryApi(DaemonTransport(config, local))
