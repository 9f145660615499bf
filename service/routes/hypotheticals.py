"""Hypotheticals over HTTP: TD material.

A TD token creates, plays, rolls out and reads them. Anyone else reads a hypothetical
only once its origin deal has ended in the match (then the deal's cards are public
anyway): while the deal runs a seat's or an anonymous read is refused (403), and the
list leaves such hypotheticals out, since a hypothetical shows every hand and a
rollout's figures rest on the real unseen cards.

Rollouts run as jobs of the server (``app.hypotheticals.jobs``): ``POST …/rollouts``
answers 202 with the job, which a TD token reads (``GET``), follows (``…/stream``,
SSE) and cancels (``DELETE``); its start, heartbeats and end are events of the
hypothetical's stream.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import anyio.to_thread
import msgspec
from litestar import Request, Response, delete, get, post
from litestar.exceptions import PermissionDeniedException
from litestar.params import JSONBody, Parameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from kartludo.app.hypotheticals import hypothetical as hy
from kartludo.app.hypotheticals import jobs
from kartludo.app.hypotheticals.jobs import JobRunner, ServerBusy
from kartludo.engine.base import ALL
from kartludo.service import schemas as s
from kartludo.service.deps import User, td_only
from kartludo.service.errors import problem, responses
from kartludo.service.limits import client_address
from kartludo.service.live import woken
from kartludo.store.errors import StoreError

log = logging.getLogger(__name__)

HypoId = Annotated[str, Parameter(pattern=s.ID_PATTERN)]
Filter = Annotated[str | None, Parameter(pattern=s.ID_PATTERN)]
Label = Annotated[str, msgspec.Meta(max_length=200, pattern=s.TEXT_PATTERN)]


class CreateHypothetical(msgspec.Struct, forbid_unknown_fields=True):
    match: s.Name
    deal: Annotated[int, msgspec.Meta(ge=1, le=100_000)]
    step: Annotated[int, msgspec.Meta(ge=0, le=1_000_000)]
    label: Label = ""


class HypoCommand(msgspec.Struct, forbid_unknown_fields=True):
    player: s.Name
    verb: s.Word
    args: Annotated[list[s.Word], msgspec.Meta(max_length=60)] = []


class RolloutRequest(msgspec.Struct, forbid_unknown_fields=True):
    n: Annotated[int, msgspec.Meta(ge=1, le=10_000)] = 200
    bots: Literal["heuristic", "random"] = "heuristic"
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    hidden: Literal["actual", "resample"] = "actual"


_TEXT = {403: "not a TD token while the origin deal runs", 404: "unknown match, hypothetical or ruling",
         409: "refused: a game rule, a settled deal, contention"}
_WRITE = responses(401, 403, 404, 409, 413, 415, text=_TEXT)
_READ = responses(401, 403, 404, text=_TEXT)


def _sv(request: Request[Any, Any, Any]) -> Any:
    return request.app.state.services


def _readable(request: Request[Any, Any, Any], h: hy.Hypothetical) -> None:
    """A TD always; anyone else once the origin deal has ended."""
    sv = _sv(request)
    who = sv.caller(request)
    if who is not None and who.role == "td":
        return
    if not hy.origin_over(sv.store, h):
        raise PermissionDeniedException(f"hypothetical {h.id} is TD material while deal {h.started.deal} of "
                                        f"match {h.started.match} runs: it needs a TD token")


@post("/hypotheticals", guards=[td_only], responses=_WRITE)
async def create_hypothetical(request: Request[Any, Any, Any], user: User,
                              data: JSONBody[CreateHypothetical]) -> Response[dict[str, Any]]:
    """Start a hypothetical from step `step` of deal `deal` of `match` (TD token): 201
    with its URL in `Location`. (Async, as `POST /matches` is, for the same reason.)"""
    store = _sv(request).store

    def create() -> dict[str, Any]:
        hypo_id = hy.create(store, data.match, data.deal, data.step, label=data.label, by=user.label or "td")
        return hy.state_json(store, hy.load(store, hypo_id), ALL)

    out = await anyio.to_thread.run_sync(create)
    return Response(out, status_code=201, headers={"Location": f"/hypotheticals/{out['hypothetical']}"})


@get("/hypotheticals", sync_to_thread=True, responses=_READ)
def list_hypotheticals(request: Request[Any, Any, Any], match: Filter = None) -> list[dict[str, Any]]:
    """Hypotheticals (of `match`): all for a TD, else those whose origin deal has ended."""
    sv = _sv(request)
    who = sv.caller(request)
    rows = hy.list_hypotheticals(sv.store, match)
    if who is not None and who.role == "td":
        return rows
    return [r for r in rows if hy.origin_over(sv.store, hy.load(sv.store, r["hypothetical"]))]


@get("/hypotheticals/{hypo_id:str}", sync_to_thread=True, responses=_READ)
def get_hypothetical(request: Request[Any, Any, Any], hypo_id: HypoId) -> dict[str, Any]:
    """A hypothetical's state: the fields of `state`, every hand, and its origin."""
    store = _sv(request).store
    h = hy.load(store, hypo_id)
    _readable(request, h)
    out = hy.state_json(store, h, ALL)
    out["rollouts"] = [hy.rollout_json(r) for r in h.rollouts]
    return out


@post("/hypotheticals/{hypo_id:str}/commands", sync_to_thread=True, guards=[td_only], responses=_WRITE)
def hypothetical_command(request: Request[Any, Any, Any], hypo_id: HypoId,
                         data: JSONBody[HypoCommand]) -> dict[str, Any]:
    """Give a command as `player` in the hypothetical (TD token); its events and the new state."""
    store = _sv(request).store
    played = hy.act(store, hypo_id, data.player, data.verb, data.args)
    _sv(request).live.elsewhere()  # a hearing room showing it follows the move
    h = hy.load(store, played.hypothetical)
    return {"described": hy.describe_played(h, played, ALL), "state": hy.state_json(store, h, ALL),
            "legal": {p: [c.text() for c in hy.legal(h, p)] for p in h.match.players}}


# --- rollout jobs ------------------------------------------------------------------------------
JobId = Annotated[str, Parameter(pattern=r"^[0-9a-f]{1,64}$")]
_JOB_TEXT = {**_TEXT, 404: "unknown hypothetical or rollout job",
             409: "refused: another job runs on the hypothetical, the job has already ended, contention",
             503: "this server runs as many rollout jobs as it may: retry after `Retry-After` seconds"}
#: a job's stream looks at its progress this often (seconds), and at its token on every look
JOB_TICK_SECONDS = 0.25
#: seconds a client is asked to wait before it asks a busy server for a job again
BUSY_RETRY_AFTER_S = 5
_RUNNER_LOCK = threading.Lock()


def _jobs(request: Request[Any, Any, Any]) -> JobRunner:
    """This server process's rollout jobs (made on first use; stopped with the server,
    each job it runs then recorded ``interrupted``)."""
    app = request.app
    runner = getattr(app.state, "rollout_jobs", None)
    if runner is None:
        with _RUNNER_LOCK:
            runner = getattr(app.state, "rollout_jobs", None)
            if runner is None:
                sv = _sv(request)
                runner = JobRunner(sv.store, changed=sv.live.elsewhere)  # a hearing room shows its end

                async def stop_jobs(_: Any = None) -> None:
                    await anyio.to_thread.run_sync(runner.close)

                app.on_shutdown.append(stop_jobs)  # run before the app's own (reverse order): the store is open
                app.state.rollout_jobs = runner
    return runner


def _job_out(job: jobs.Job, *, result: bool = True) -> s.RolloutJob:
    out = jobs.job_json(job)
    if not result:
        out["result"] = None
    return msgspec.convert(out, s.RolloutJob)


def _busy(exc: ServerBusy) -> Response[Any]:
    return problem(503, str(exc), headers={"Retry-After": str(BUSY_RETRY_AFTER_S)})


@post("/hypotheticals/{hypo_id:str}/rollouts", guards=[td_only], status_code=202,
      responses=responses(401, 403, 404, 409, 413, 415, 503, text=_JOB_TEXT))
async def hypothetical_rollouts(request: Request[Any, Any, Any], user: User, hypo_id: HypoId,
                          data: JSONBody[RolloutRequest]) -> Response[s.RolloutJob]:
    """Start a rollout job (TD token): the hypothetical's deal played to settlement `n`
    times by bots, in a worker thread of the server. Answers 202 at once with the job
    (`Location`: `/hypotheticals/{id}/rollouts/{job}`): `GET` it for its progress and,
    once `done`, its `result` (the document `hypo rollout --format json` prints, also
    recorded on the hypothetical's stream); `GET …/stream` follows it (SSE); `DELETE`
    cancels it. One job at a time per hypothetical (409 while one runs); 503 with
    `Retry-After` when this server runs as many jobs as it may. (Async, its work in a
    worker thread: a sync handler answering a `Response` on a path shared with another
    method's handler is wrapped twice by Litestar's registration and never runs.)"""
    store = _sv(request).store
    runner = _jobs(request)

    def submit() -> jobs.Job:
        return runner.submit(hy.resolve(store, hypo_id), data.n, bots=data.bots, seed=data.seed, hidden=data.hidden,
                             by=user.label or "td")

    try:
        job = await anyio.to_thread.run_sync(submit)
    except ServerBusy as exc:
        return _busy(exc)
    out = _job_out(job)
    return Response(out, status_code=202, headers={"Location": out.url})


@get("/hypotheticals/{hypo_id:str}/rollouts", sync_to_thread=True, guards=[td_only],
     responses=responses(401, 403, 404, text=_JOB_TEXT))
def list_rollout_jobs(request: Request[Any, Any, Any], hypo_id: HypoId) -> list[s.RolloutJob]:
    """The hypothetical's rollout jobs, oldest first, each with `result` null (`GET` the
    job for it) (TD token)."""
    runner = _jobs(request)
    return [_job_out(j, result=False) for j in runner.list(hy.resolve(_sv(request).store, hypo_id))]


@get("/hypotheticals/{hypo_id:str}/rollouts/{job_id:str}", sync_to_thread=True, guards=[td_only],
     responses=responses(401, 403, 404, text=_JOB_TEXT))
def get_rollout_job(request: Request[Any, Any, Any], hypo_id: HypoId, job_id: JobId) -> s.RolloutJob:
    """A rollout job (TD token): `status` (`running`, `done`, `cancelled`, `interrupted`,
    `failed`), `done` of `total` rollouts, and once done its `result`. A job whose
    server stopped before it finished reads `interrupted` (recorded so by this read)."""
    runner = _jobs(request)
    return _job_out(runner.get(hy.resolve(_sv(request).store, hypo_id), job_id))


@delete("/hypotheticals/{hypo_id:str}/rollouts/{job_id:str}", sync_to_thread=True, guards=[td_only],
        status_code=200, responses=responses(401, 403, 404, 409, text=_JOB_TEXT))
def cancel_rollout_job(request: Request[Any, Any, Any], user: User, hypo_id: HypoId,
                       job_id: JobId) -> s.RolloutJob:
    """Cancel a running rollout job (TD token): recorded at once, the job stops within
    moments and no result is recorded; the job, `cancelled`. An ended job: 409."""
    runner = _jobs(request)
    return _job_out(runner.cancel(hy.resolve(_sv(request).store, hypo_id), job_id, by=user.label or "td"))


@get("/hypotheticals/{hypo_id:str}/rollouts/{job_id:str}/stream", guards=[td_only],
     responses=responses(401, 403, 404, 429, text=_JOB_TEXT))
async def rollout_job_stream(request: Request[Any, Any, Any], hypo_id: HypoId, job_id: JobId) -> ServerSentEvent:
    """Server-Sent Events of a rollout job (TD token): `progress` (`{"job", "status",
    "done", "total"}`) as its count moves, then one last message and the stream ends:
    `result` (the job's result document) when done, else `cancelled`, `interrupted` or
    `failed` (the job). The token is checked again on every look (four a second): a
    revoked token's stream ends at once."""
    sv = _sv(request)
    runner = _jobs(request)
    hid = await anyio.to_thread.run_sync(hy.resolve, sv.store, hypo_id)
    first = await anyio.to_thread.run_sync(runner.get, hid, job_id)  # 404 before the stream begins
    who = await anyio.to_thread.run_sync(sv.caller, request)
    slot = sv.streams.take(who, client_address(request, sv.limits))
    encode = msgspec.json.encode

    def token_live() -> bool:
        return who is not None and sv.tokens.is_live(who.token_hash)

    def look() -> jobs.Job:
        local = runner.local_progress(first.id)
        if local is not None:  # run here: its live count, no read
            first.done = max(first.done, local)
            return first
        return runner.get(hid, job_id)

    async def messages() -> AsyncIterator[ServerSentEventMessage]:
        sent = -1
        try:
            while True:
                wake = sv.live.changed  # a commit anywhere (a revocation among them) wakes the stream
                if not await anyio.to_thread.run_sync(token_live):
                    yield ServerSentEventMessage(comment="token revoked: the stream ends", data=None)
                    return
                job = await anyio.to_thread.run_sync(look)
                done = job.n if job.status == jobs.DONE else job.done
                if done != sent or job.status != jobs.RUNNING:
                    sent = done
                    yield ServerSentEventMessage(event="progress", data=encode(
                        {"job": job.id, "status": job.status, "done": done, "total": job.n}).decode())
                if job.status != jobs.RUNNING:
                    doc = jobs.job_json(job)
                    last = doc["result"] if job.status == jobs.DONE else doc
                    yield ServerSentEventMessage(event="result" if job.status == jobs.DONE else job.status,
                                                 data=encode(last).decode())
                    return
                await woken(wake, JOB_TICK_SECONDS)
                await asyncio.sleep(0.05)  # a busy server's commits wake it often: a look at most 20 times a second
        except StoreError as exc:  # the database went away mid-stream: end it; the client reconnects
            log.warning("rollout job stream %s ends: %s", job_id, exc)
            yield ServerSentEventMessage(comment="database unavailable: reconnect", retry=1000, data=None)
        finally:
            slot.release()

    iterator = messages()
    weakref.finalize(iterator, slot.release)  # a response that never starts still gives its slot back
    return ServerSentEvent(iterator)


@get("/audit/{match_id:str}/{ruling_id:str}/hypotheticals", sync_to_thread=True, responses=_READ)
def ruling_hypotheticals(request: Request[Any, Any, Any], match_id: HypoId, ruling_id: HypoId) -> list[dict[str, Any]]:
    """The hypotheticals made from a ruling's deal, with their results (a TD's at any
    time; anyone's once the deal has ended)."""
    from kartludo.app.audit.trail import resolve_ruling

    sv = _sv(request)
    who = sv.caller(request)
    with sv.projections:
        record = resolve_ruling(sv.store, f"{match_id}/{ruling_id}")
    rows = hy.list_hypotheticals(sv.store, record.match, record.deal)
    if who is not None and who.role == "td":
        return rows
    if rows and not hy.origin_over(sv.store, hy.load(sv.store, rows[0]["hypothetical"])):
        raise PermissionDeniedException(f"the hypotheticals of deal {record.deal} are TD material while it runs")
    return rows


ROUTES = [create_hypothetical, list_hypotheticals, get_hypothetical, hypothetical_command, hypothetical_rollouts,
          list_rollout_jobs, get_rollout_job, cancel_rollout_job, rollout_job_stream, ruling_hypotheticals]
