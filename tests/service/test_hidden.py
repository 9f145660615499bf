"""Hidden information over HTTP: a deal of every game played by bots through the API;
after every command no seat's view (state, events list, live stream, replay of the
running deal) contains a card
another seat holds face down at that moment.

A card counts as secret to seat s when another seat holds it now, s does not hold a
copy and never held it, and it has never been shown publicly (the no-token view).
"""

from __future__ import annotations

import json
import os
import random
import re
import time

import every_game
import httpx
import msgspec
import pytest
from click.testing import CliRunner
from every_game import games, heuristic, seats, short_options
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st
from serving import bearer

from kartludo.app.league.series import create_series
from kartludo.app.matches.pipeline import MatchService
from kartludo.cli.context import Env
from kartludo.cli.main import cli
from kartludo.engine.base import ALL, PUBLIC
from kartludo.engine.registry import get_game
from kartludo.engine.shapes import Shape, expand
from kartludo.events.base import encode, from_builtins, to_builtins
from kartludo.store.eventstore import GENESIS, chain_hash
from kartludo.store.transfer import parse_us


def words_in(text: str, deck: set[str]) -> set[str]:
    """Card codes named in a sentence (a replay step's description)."""
    return {w for w in re.split(r"[\s,;:()\[\]]+", text) if w in deck}


def cards_in(data, deck: set[str]) -> set[str]:
    """Every card code anywhere in a JSON value."""
    found: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in deck:
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(k for k in item if k in deck)
        elif isinstance(item, list):
            stack.extend(item)
    return found


@pytest.mark.parametrize("game_name", games())
def test_no_seat_sees_a_card_another_seat_holds(game_name, server, sse, store, td_token, settle=None):
    """``settle`` (the replica path's): called before each round of reads, so that every
    read of the round shows the same moment whichever database serves it (a public
    read from a lagging standby and a seat's from the primary would not: a card shown
    at the end of a deal would be public in one and not yet in the other)."""
    game = get_game(game_name)
    players = every_game.players(game_name)
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/matches", json={"game": game_name, "players": players, "seed": 11, "auto_deal": False},
                        headers=bearer(td_token)).json()
    mid, tokens = created["match"], created["tokens"]
    streams = {p: sse(f"{server}/matches/{mid}/stream", bearer(tokens[p])) for p in players}
    dealt = http.post(f"/matches/{mid}/deals", json={}, headers=bearer(td_token))
    assert dealt.status_code == 201
    svc = MatchService(store)
    deck = set(game.deck(svc.load(mid).created.options))
    held_ever = {p: set() for p in players}
    public_seen: set[str] = set()
    last_seen = {p: 0 for p in players}
    positions = dealt.json()["positions"]
    rng = random.Random(5)
    bot = heuristic(game_name)
    checked = 0
    for _ in range(2000):
        if settle is not None:
            settle()
        td_view = svc.state_json(svc.load(mid), ALL)
        hands = {p: set(td_view["hands"].get(p, [])) for p in players}
        public_state = http.get(f"/matches/{mid}/state").json()
        assert not public_state.get("hands")
        public_seen |= cards_in(public_state, deck)
        public_seen |= cards_in(http.get(f"/matches/{mid}/events", params={"after": positions[0] - 1}).json(), deck)
        ended = td_view["status"] == "finished" or game.can_deal(svc.load(mid).state)
        for p in players:
            held_ever[p] |= hands[p]
            secret = set().union(*(hands[q] for q in players if q != p)) - held_ever[p] - public_seen
            state = http.get(f"/matches/{mid}/state", headers=bearer(tokens[p])).json()
            assert not cards_in(state, deck) & secret, (p, "state", cards_in(state, deck) & secret)
            events = http.get(f"/matches/{mid}/events", params={"after": last_seen[p]},
                              headers=bearer(tokens[p])).json()
            if not ended:
                assert not cards_in(events, deck) & secret, (p, "events", cards_in(events, deck) & secret)
                streams[p].wait_for(positions[-1])
                live = [m["data"] for m in streams[p].messages if int(m["id"]) in positions]
                assert [e["position"] for e in live] == positions
                assert not cards_in(live, deck) & secret, (p, "stream", cards_in(live, deck) & secret)
                replay = http.get(f"/matches/{mid}/replay", headers=bearer(tokens[p])).json()
                assert not replay["ended"]
                shown = cards_in(replay["steps"], deck).union(*(words_in(st["description"], deck)
                                                                for st in replay["steps"]))
                assert not shown & secret, (p, "replay", shown & secret)
            if events:
                last_seen[p] = events[-1]["position"]
        checked += 1
        if ended:
            break
        state = svc.load(mid).state
        seat = game.to_act(state)[0]
        command = bot.choose(game, state, seat, game.legal_commands(state, seat), rng)
        verb, *args = command.text().split()
        r = http.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args},
                      headers=bearer(tokens[players[seat]]))
        assert r.status_code == 201, r.text
        positions = r.json()["positions"]
    else:
        pytest.fail("the deal did not end")
    assert checked > 10
    http.close()



@pytest.mark.parametrize("game_name", games())
def test_hypotheticals_are_td_material_while_their_deal_runs(game_name, server, store, td_token):
    """A hypothetical shows every hand and its rollouts rest on the real unseen cards:
    while its origin deal runs no seat token and no anonymous caller reads it, lists
    it, plays it or rolls it out; once the deal has ended anyone reads it."""
    game = get_game(game_name)
    players = every_game.players(game_name)
    http = httpx.Client(base_url=server, timeout=60)
    created = http.post("/matches", json={"game": game_name, "players": players, "seed": 11, "auto_deal": False},
                        headers=bearer(td_token)).json()
    mid, tokens = created["match"], created["tokens"]
    assert http.post(f"/matches/{mid}/deals", json={}, headers=bearer(td_token)).status_code == 201
    svc = MatchService(store)
    deck = set(game.deck(svc.load(mid).created.options))
    made = http.post("/hypotheticals", json={"match": mid, "deal": 1, "step": 1, "label": "what if"},
                     headers=bearer(td_token))
    assert made.status_code == 201, made.text
    hid = made.json()["hypothetical"]
    assert made.json()["hands"]  # a TD sees every hand
    rng = random.Random(3)
    bot = heuristic(game_name)
    readers = [None, *(tokens[p] for p in players)]
    for _ in range(2000):
        state = svc.load(mid).state
        # over HTTP the table deals the next deal itself (auto_deal): deal 1 has ended
        # once the match is past it, whatever runs now
        if game.can_deal(state) or game.is_finished(state) or game.deal_number(state) > 1:
            break
        for token in readers:
            headers = bearer(token) if token else {}
            r = http.get(f"/hypotheticals/{hid}", headers=headers)
            assert r.status_code in (401, 403) and not cards_in(r.json(), deck), r.text
            listed = http.get("/hypotheticals", params={"match": mid}, headers=headers)
            assert listed.status_code == 200 and listed.json() == []
        seat = game.to_act(state)[0]
        command = bot.choose(game, state, seat, game.legal_commands(state, seat), rng)
        verb, *args = command.text().split()
        for token in readers:
            headers = bearer(token) if token else {}
            cmd = http.post(f"/hypotheticals/{hid}/commands", json={"player": players[seat], "verb": verb,
                                                                    "args": args}, headers=headers)
            assert cmd.status_code in (401, 403), cmd.text
            roll = http.post(f"/hypotheticals/{hid}/rollouts", json={"n": 2, "seed": 1}, headers=headers)
            assert roll.status_code in (401, 403), roll.text
        r = http.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args},
                      headers=bearer(tokens[players[seat]]))
        assert r.status_code == 201, r.text
    else:
        pytest.fail("the deal did not end")
    job = http.post(f"/hypotheticals/{hid}/rollouts", json={"n": 3, "seed": 1}, headers=bearer(td_token))
    assert job.status_code == 202, job.text  # a rollout job: its result recorded when it ends
    for _ in range(3000):
        if http.get(job.headers["location"], headers=bearer(td_token)).json()["status"] != "running":
            break
        time.sleep(0.02)
    for token in readers:
        headers = bearer(token) if token else {}
        r = http.get(f"/hypotheticals/{hid}", headers=headers)
        assert r.status_code == 200 and r.json()["hypothetical"] == hid and len(r.json()["rollouts"]) == 1
        assert [h["hypothetical"] for h in http.get("/hypotheticals", headers=headers).json()] == [hid]
    http.close()


def test_hearing_annotations_are_td_material_while_the_ruled_deal_runs(server, store, td_token, monkeypatch):
    """An annotation may name cards: while the ruled deal runs only a TD token reads
    them (a seat or anonymous read is refused); once it has ended anyone reads them.
    Writing needs a TD token or a seat token of the ruling's match."""
    from scenarios import foul_then_void_win

    from kartludo.app.audit import hearing
    from kartludo.app.tokens import issue

    mid = foul_then_void_win(MatchService(store))
    players = MatchService(store).load(mid).players
    seats = {p: issue(store, "seat", match=mid, seat=i) for i, p in enumerate(players)}
    other = foul_then_void_win(MatchService(store), players=["dan", "eve", "fay"])
    stranger = issue(store, "seat", match=other, seat=0)
    http = httpx.Client(base_url=server, timeout=30)
    url = f"/audit/{mid}/uxinjo-d1-Or/annotations"
    ruled = http.get(f"/audit/{mid}/uxinjo-d1-Or", headers=bearer(td_token)).json()["position"]
    text = "ann held R3 R7 B3 here"
    assert http.post(url, json={"event": ruled, "text": text}, headers=bearer(td_token)).status_code == 201
    assert http.post(url, json={"event": ruled - 1, "text": "mine"}, headers=bearer(seats["bob"])).status_code == 201
    for headers in ({}, bearer(stranger)):
        r = http.post(url, json={"event": ruled, "text": "x"}, headers=headers)
        assert r.status_code in (401, 403), r.text
    assert http.post(url, json={"event": 1, "text": "x"}, headers=bearer(td_token)).status_code == 409
    assert len(store.read_stream(hearing.hearing_stream(f"{mid}/uxinjo-d1-Or"))) == 2
    monkeypatch.setattr(hearing, "_deal_ended", lambda store, record: False)  # as if the deal still ran
    deck = {"R3", "R7", "B3"}
    for headers in ({}, *(bearer(t) for t in seats.values()), bearer(stranger)):
        r = http.get(url, headers=headers)
        assert r.status_code in (401, 403) and not cards_in(r.json(), deck) and "R3" not in r.text, r.text
    assert [a["by"] for a in http.get(url, headers=bearer(td_token)).json()] == ["mia", "bob"]
    # a hearing room shows every hand to whoever holds its link: it opens only once the deal has ended
    room = http.post(f"/hearings/{mid}/uxinjo-d1-Or", headers=bearer(td_token))
    assert room.status_code == 403 and "still being played" in room.text
    monkeypatch.undo()
    for headers in ({}, *(bearer(t) for t in seats.values())):
        r = http.get(url, headers=headers)
        assert r.status_code == 200 and [(a["by"], a["role"]) for a in r.json()] == [("mia", "td"), ("bob", "player")]
    http.close()


# --- the property: random legal play, every reader, every read, every step -----------------------
#
# At every step of a match played with random legal commands (drawn by hypothesis), for
# every seat token and for no token, everything that caller can read holds none of the
# match's secrets:
#
# - no card of the running deal that is hidden from it: a card another seat holds (or
#   the stock, the face-down Kasxetoj or the Manni hold) that this reader has never
#   held this deal and that has never been on the table or in the public view;
# - no seed nor seeded shuffle key, and no salt of the running deal;
# - no chain hash that commits to anything hidden from it (every hash served must be
#   recomputable from what this reader was served).
#
# The secrets are computed from the TD's knowledge: the match folded by the library.

# Players per game: the smallest table in the quick run (Svoi Kozyri's deals are long), the
# middle one in the long run; a game's short options (``Option.short``) make its matches
# short, so that some examples reach the match's end (the seed made public).
_WORD = re.compile(r"[A-Za-z0-9]+")


def words(data) -> set[str]:
    """Every word (a run of letters and digits) of every string and key in a JSON value."""
    return set(_WORD.findall(data if isinstance(data, str) else json.dumps(data)))


def hidden_now(game, state, deck: list[str]) -> tuple[list[list[str]], list[str]]:
    """Where cards lie face down now (the TD's knowledge, asked of the game's own views):
    each seat's hand (the TD's view), and the cards of the deck in no hand that the public
    view does not show either (a stock but its revealed card, face-down Kasxetoj, the
    Manni and the declarer's exchange discards, cards never dealt), each copy of a twin
    counted apart."""
    everything = game.view(state, ALL)["hands"]
    hands = [list(everything.get(p, [])) for p in state.players]
    shown = _WORD.findall(json.dumps(game.view(state, PUBLIC)))
    return hands, left_of(left_of(deck, [c for h in hands for c in h]), shown)


def left_of(deck: list[str], cards: list[str]) -> list[str]:
    """``deck`` with one copy of each of ``cards`` it holds taken out (a multiset difference)."""
    left = list(deck)
    for c in cards:
        if c in left:
            left.remove(c)
    return left


def minus(deck: list[str], cards: list[str]) -> set[str]:
    """The codes of ``deck`` left when ``cards`` are taken out (a multiset difference)."""
    return set(left_of(deck, cards))


class Reader:
    """One caller: a seat (its token) or the public (no token), with its live stream."""

    def __init__(self, name: str | None, seat: int | None, token: str | None, stream) -> None:
        self.name, self.seat, self.token, self.stream = name, seat, token, stream
        self.seen: set[str] = set()  # cards this reader may know this deal

    @property
    def label(self) -> str:
        return self.name or "public"


class Table:
    """One match played over HTTP, and the checks of everything its readers can read."""

    def __init__(self, game_name, server, sse, store, db_url, td_token, *, seats: int, seed: int | None,
                 in_series: bool, data) -> None:
        self.game_name, self.store, self.db_url, self.td = game_name, store, db_url, td_token
        self.game = get_game(game_name)
        self.http = httpx.Client(base_url=server, timeout=30)
        self.svc = MatchService(store)
        self.players = ["ann", "bob", "cy", "dee"][:seats]
        body = {"game": game_name, "players": self.players, "options": short_options(game_name)}
        # a seed long enough to be recognised anywhere it might leak
        self.seed = seed
        self.data = data
        if self.seed is not None:
            body["seed"] = self.seed
        # a seeded match may deal by itself (the seeded shuffle keeps an example repeatable)
        self.auto_deal = seed is not None and data.draw(st.booleans(), label="auto deal")
        body["auto_deal"] = self.auto_deal
        self.series = None
        if in_series:
            self.series = create_series(store, game_name, self.players, 600, actor="td")
            body["series"] = self.series
        created = self.http.post("/matches", json=body, headers=bearer(td_token))
        assert created.status_code == 201, created.text
        self.mid = created.json()["match"]
        self.players = created.json()["players"]
        tokens = created.json()["tokens"]
        self.readers = [Reader(p, i, tokens[p], sse(f"{server}/matches/{self.mid}/stream", bearer(tokens[p])))
                        for i, p in enumerate(self.players)]
        self.readers.append(Reader(None, None, None, sse(f"{server}/matches/{self.mid}/stream")))
        self.deck = list(self.game.deck(self.svc.load(self.mid).created.options))
        self.codes = set(self.deck)
        self.cli = CliRunner()
        self.deal_start = 0  # position of the running deal's DealStarted
        self.checks = 0

    # --- the TD's knowledge ------------------------------------------------------------------
    def match(self):
        return self.svc.load(self.mid)

    def records(self):
        return self.store.read_stream(f"match-{self.mid}")

    def records_with_states(self):
        """Each match event (after the creation) with the match's state before it."""
        from kartludo.app.matches.pipeline import fold_records
        from kartludo.engine.match import step

        records = self.records()
        state = fold_records(self.mid, records[:1]).state
        for r in records[1:]:
            yield r, state
            state = step(self.game, state, r.event)

    def learn(self) -> None:
        """Fold what each reader may legitimately know into its ``seen`` set."""
        match = self.match()
        hands, rest = hidden_now(self.game, match.state, self.deck)
        face_down = [c for h in hands for c in h] + rest
        # on the table, in the public view, or in an event of this deal as the public sees it (the engine's redact)
        shown = [self.game.view(match.state, PUBLIC)]
        shown += [to_builtins(self.game.redact(before, r.event, PUBLIC))
                  for r, before in self.records_with_states() if r.position >= self.deal_start]
        public = minus(self.deck, face_down) | (words(shown) & self.codes)
        for r in self.readers:
            r.seen |= public
            if r.seat is not None:
                r.seen |= set(hands[r.seat])

    def secret(self, reader: Reader) -> set[str]:
        match = self.match()
        if self.game.can_deal(match.state) or match.status == "finished":
            return set()  # no deal runs: the last one is public
        hands, rest = hidden_now(self.game, match.state, self.deck)
        hidden = [c for i, h in enumerate(hands) if i != reader.seat for c in h] + rest
        return set(hidden) - reader.seen

    def running_salt(self) -> str | None:
        match = self.match()
        if self.game.can_deal(match.state) or match.status == "finished":
            return None
        deal = [r.event for r in self.records() if r.type == "match.deal-started"][-1]
        return deal.salt

    # --- reading ---------------------------------------------------------------------------------
    def get(self, reader: Reader, path: str, **params):
        r = self.http.get(path, params=params, headers=bearer(reader.token))
        assert r.status_code < 500, (path, r.status_code, r.text)
        return r

    def check_all(self, *, every_deal: bool = False) -> None:
        """Every read of every reader, now."""
        self.learn()
        records = self.records()
        by_version = {r.version: r for r in records}
        salt = self.running_salt()
        over = self.match().status == "finished"
        boundary = every_deal or self.game.can_deal(self.match().state) or records[-1].type == "match.deal-started"
        for i, reader in enumerate(self.readers):
            leaks = Leaks(self, reader, by_version, salt, over)
            self.read_everything(reader, leaks, every_deal, league=boundary or i == self.checks % len(self.readers))
        self.checks += 1

    def read_everything(self, reader: Reader, leaks: Leaks, every_deal: bool, league: bool) -> None:
        mid = self.mid
        events = self.get(reader, f"/matches/{mid}/events").json()
        leaks.hash_chain(events)
        leaks.check("events", events, current=[e for e in events if e["position"] >= self.deal_start])
        for path in (f"/matches/{mid}", f"/matches/{mid}/state"):
            state = self.get(reader, path).json()
            leaks.state(path, state)
            if reader.seat is None:
                assert not state.get("hands"), (path, state["hands"])
            else:
                assert set(state.get("hands", {})) <= {reader.name}, (path, state["hands"])
        legal = self.get(reader, f"/matches/{mid}/legal")
        assert legal.status_code == (200 if reader.seat is not None else 401)
        leaks.check("legal", legal.json(), current=legal.json())
        # a seat's moves (shapes and cautions): its own cards only; nobody else may ask
        moves = self.get(reader, f"/matches/{mid}/moves")
        assert moves.status_code == (200 if reader.seat is not None else 401)
        leaks.check("moves", moves.json(), current=moves.json())
        if reader.seat is not None:  # its shapes alone (issue 44): exactly its legal commands
            assert "legal" not in moves.json()
            shown = moves.json()["shapes"]
            assert sorted(c.text() for s in shown for c in expand(Shape(**s), reader.seat, self.game.parse_command)) \
                == sorted(legal.json())
        table = self.get(reader, f"/matches/{mid}/table")  # the TD's table facts: refused to every reader
        assert table.status_code == (403 if reader.seat is not None else 401)
        # a refusal is a problem (RFC 9457) and nothing more: no field of the match in it
        assert set(table.json()) == {"type", "title", "status", "detail", "error", "rule"}, table.json()
        assert table.json()["rule"] is None and table.json()["detail"] == table.json()["error"]
        # the live stream: every message it has pushed so far
        reader.stream.wait_for(events[-1]["position"])
        live = [m["data"] for m in reader.stream.messages]
        leaks.check("stream", live, current=[e for e in live if e["position"] >= self.deal_start])
        for e in live:
            leaks.served_hash("stream", e)
        # the replay: the running (or last) deal in every view this reader may ask for
        got = self.get(reader, f"/matches/{mid}/replay")
        leaks.check("replay", got.json())
        if got.status_code == 404:  # no deal yet
            assert "no deal yet" in got.json()["error"]
            replay = {"deals": [0], "deal": 0, "ended": False}
        else:
            replay = got.json()
            self.check_replay(reader, leaks, replay, current=True)
            if reader.name:  # the default is the caller's own view; a seat may narrow it to the public one
                self.check_replay(reader, leaks, self.get(reader, f"/matches/{mid}/replay", view="public").json(),
                                  current=True)
        deals = replay["deals"]
        if got.status_code == 200 and (every_deal or replay["ended"]):
            for deal in deals:
                for view in ["all", "public", *self.players]:
                    r = self.get(reader, f"/matches/{mid}/replay", deal=deal, view=view)
                    if r.status_code == 200:
                        self.check_replay(reader, leaks, r.json(), current=deal == deals[-1])
                    else:  # the running deal: only the caller's own view (or the public one)
                        assert r.status_code == 403 and not r.json()["error"].count(str(self.seed or "-"))
        # the league and the audit trail: the same for every caller, so read by one reader a
        # step in turn, and by every reader when a deal starts or ends
        if league:
            leaks.check("matches", self.get(reader, "/matches").json())
            leaks.check("standings", self.get(reader, "/standings").json())
            if self.series:
                leaks.check("series", self.get(reader, f"/series/{self.series}").json())
            rulings = self.get(reader, "/audit", match=mid).json()
            leaks.check("audit", rulings, current=[r for r in rulings if r["deal"] == deals[-1]])
            for ruling in rulings:
                one = self.get(reader, f"/audit/{ruling['id']}").json()
                leaks.check("ruling", one, current=one if ruling["deal"] == deals[-1] else None)
        me = self.get(reader, "/me")
        assert me.status_code == (200 if reader.token else 401)
        leaks.check("me", me.json())
        # the CLI: `state --as PLAYER --json` (or the public `state --json`) and `replay --as`
        args = ["--as", reader.name] if reader.name else []
        state = json.loads(self.kartludo("state", mid, *args, "--json"))
        leaks.state("cli state", state)
        if reader.name and replay["deal"]:
            steps = json.loads(self.kartludo("replay", mid, "--as", reader.name, "--json"))
            leaks.check("cli replay", steps, current=steps if deals[-1] == replay["deal"] else None)
            for st_ in steps:
                leaks.no_seed_field("cli replay", st_["state"])
                leaks.served_hash("cli replay", st_["event"])

    def check_replay(self, reader: Reader, leaks: Leaks, replay: dict, *, current: bool) -> None:
        leaks.check("replay", replay, current=replay if current else None)
        for step_ in replay["steps"]:
            leaks.no_seed_field("replay", step_["state"])
            leaks.served_hash("replay", step_["event"])

    def kartludo(self, *args: str) -> str:
        # the CLI's own code path, on the test's open store (no new connection per command)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(Env, "store", self.store)
            mp.setattr(Env, "close", lambda env: None)
            result = self.cli.invoke(cli, ["--db", self.db_url, *args])
        assert result.exit_code == 0 and "Traceback" not in result.output, (args, result.output)
        return result.output

    # --- playing ---------------------------------------------------------------------------------
    def deal(self) -> None:
        """The next deal: the seeded shuffle, or a deck entered by hand (drawn by hypothesis:
        a CSPRNG deck would make the random play differ between runs of one example)."""
        body = {}
        if self.seed is None or self.data.draw(st.booleans(), label="deck entered by hand"):
            body["deck"] = self.data.draw(st.permutations(self.deck), label="deck")
        r = self.http.post(f"/matches/{self.mid}/deals", json=body, headers=bearer(self.td))
        assert r.status_code == 201, r.text
        self.deal_start = r.json()["positions"][0]
        for reader in self.readers:
            reader.seen = set()

    def dealt_by_table(self) -> None:
        """The table started the next deal by itself (an ``auto_deal`` match)."""
        records = self.records()
        started = [r for r in records if r.type == "match.deal-started"]
        assert started and started[-1].actor == "table", "an automatic deal is recorded as the table's"
        self.deal_start = started[-1].position
        for reader in self.readers:
            reader.seen = set()

    def close(self) -> None:
        for reader in self.readers:
            reader.stream.close()
        self.http.close()


class Leaks:
    """The checks of one reader's reads at one moment."""

    def __init__(self, table: Table, reader: Reader, by_version: dict, salt: str | None, over: bool) -> None:
        self.table, self.reader, self.by_version, self.salt, self.over = table, reader, by_version, salt, over
        self.secret = table.secret(reader)
        self.exact: dict[int, bool] = {}  # version -> this reader was served the event exactly as stored

    def check(self, what: str, data, current=None) -> None:
        """No secret card in ``current`` (what belongs to the running deal); no seed and no
        running deal's salt anywhere in ``data``."""
        label = f"{self.reader.label} {what}"
        text = json.dumps(data)
        if current is not None and self.secret:
            shown = words(text if current is data else current) & self.secret
            assert not shown, (label, "hidden cards", sorted(shown))
        if self.table.seed is not None and not self.over:
            assert str(self.table.seed) not in text, (label, "the seed")
        if self.salt:
            assert self.salt not in text, (label, "the running deal's salt")

    def state(self, what: str, state: dict) -> None:
        self.check(what, state, current=state)
        self.no_seed_field(what, state)

    def no_seed_field(self, what: str, state: dict) -> None:
        if not self.over:
            assert "seed" not in state, (self.reader.label, what, "seed field", state.get("seed"))

    def hash_chain(self, events: list[dict]) -> None:
        """Every hash served with the events is recomputable from what was served: it
        commits to nothing this reader was not shown."""
        prev = GENESIS
        for e in events:
            rec = self.by_version[e["version"]]
            served = encode(from_builtins(e["type"], e["schema_version"], e["payload"]))
            self.exact[e["version"]] = served == encode(rec.event) and self.exact.get(e["version"] - 1, True)
            if e["hash"] is not None:
                assert prev is not None, (self.reader.label, "a hash chained to a withheld one", e["version"])
                recomputed = chain_hash(prev, e["stream_id"], e["version"], e["type"], e["schema_version"],
                                        parse_us(e["recorded_at"]), e["actor"], e["command_id"], served)
                assert recomputed.hex() == e["hash"], (self.reader.label, "a hash over hidden data", e["version"])
                prev = bytes.fromhex(e["hash"])
            else:
                prev = None

    def served_hash(self, what: str, e: dict) -> None:
        """A hash served elsewhere (stream, replay) only for an event served exactly as
        stored and after a prefix served exactly as stored."""
        if e.get("hash") is None:
            return
        rec = self.by_version[e["version"]]
        served = encode(from_builtins(e["type"], e["schema_version"], e["payload"]))
        assert served == encode(rec.event), (self.reader.label, what, "hash of a redacted event", e["version"])
        assert all(self.exact.get(v, False) for v in range(1, e["version"])), (
            self.reader.label, what, "hash chained to a hidden event", e["version"])
        assert e["hash"] == rec.hash.hex()


def draw_command(table: Table, data, seat: int, legal: list[str]) -> str:
    """A command for ``seat``, drawn by hypothesis: one time in five any legal command,
    otherwise the heuristic bot's choice with a drawn random source (purely random play
    can go on for ever: a Svoi Kozyri table picks up again and again)."""
    if data.draw(st.integers(0, 4), label="any legal command") == 4:
        return data.draw(st.sampled_from(legal), label="command")
    state = table.match().state
    game = table.game
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="bot's random source"))
    command = heuristic(table.game_name).choose(game, state, seat, game.legal_commands(state, seat), rng).text()
    assert command in legal, (command, legal)
    return command


def play_and_check(table: Table, data, *, deals: int, last_deal_steps: int, max_deal_steps: int = 300) -> None:
    """Play with commands drawn by hypothesis from each seat's legal list (read over
    HTTP); every read checked after every step. ``deals`` deals are started, each played
    out but the last, which stops after ``last_deal_steps`` commands (and any deal after
    ``max_deal_steps``). A table that deals by itself stops once it has dealt the deal
    after the last (checked once): drawn deals dealt again would otherwise go on for as
    long as the match does, and every step re-reads the whole log."""
    game = table.game
    started = in_deal = 0
    if table.auto_deal:  # created over HTTP with auto_deal: the table dealt the first deal at once
        table.dealt_by_table()
        started = 1
    table.check_all()
    while True:
        match = table.match()
        if match.status == "finished" or in_deal == max_deal_steps or started > deals or (
                started >= deals and in_deal == last_deal_steps):
            break
        if game.can_deal(match.state):
            if started == deals:
                break
            table.deal()
            started += 1
            in_deal = 0
            table.check_all()
            continue
        in_deal += 1
        seats = game.to_act(match.state)
        seat = seats[0] if len(seats) == 1 else data.draw(st.sampled_from(seats), label="seat")
        reader = table.readers[seat]
        legal = table.get(reader, f"/matches/{table.mid}/legal").json()
        assert legal, (table.players[seat], game.phase(match.state))
        command = draw_command(table, data, seat, legal)
        verb, *args = command.split()
        r = table.http.post(f"/matches/{table.mid}/commands", json={"verb": verb, "args": args},
                            headers=bearer(reader.token))
        assert r.status_code == 201, r.text
        if r.json()["dealt"]:
            assert table.auto_deal
            table.dealt_by_table()
            started += 1
            in_deal = 0
        table.check_all()
    # every deal's replay, in every view, once more at the end (and the seed public once the match has ended)
    table.check_all(every_deal=True)
    if table.match().status == "finished" and table.seed is not None:
        public = table.http.get(f"/matches/{table.mid}/state").json()
        assert public["seed"] == table.seed


def _property(game_name, server, sse, store, db_url, td_token, data, *, seats, **play):
    # the simplest example (hypothesis's first) is a seeded match; later ones are drawn
    seeded = data.draw(st.sampled_from([True, False]), label="seeded")
    in_series = data.draw(st.booleans(), label="in a series")
    seed = data.draw(st.integers(10**15, 10**16 - 1), label="seed") if seeded else None
    table = Table(game_name, server, sse, store, db_url, td_token, seats=seats, seed=seed, in_series=in_series,
                  data=data)
    note(f"match {table.mid}, seed {table.seed}, series {table.series}")
    try:
        play_and_check(table, data, **play)
    finally:
        table.close()
    assert table.checks > 3


_FAST = settings(max_examples=2, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
                 suppress_health_check=list(HealthCheck), database=None)


@pytest.mark.slow  # 25-85 s per game and backend on a quiet 2-core machine, 107-210 s on a loaded one
@pytest.mark.parametrize("game_name", games())
@_FAST
@given(data=st.data())
def test_random_play_never_shows_a_reader_a_secret(game_name, server, sse, store, db_url, td_token, data):
    _property(game_name, server, sse, store, db_url, td_token, data, seats=seats(game_name, smallest=True), deals=2,
              last_deal_steps=4)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("KARTLUDO_LONG_PROPERTIES") != "1",
                    reason="the long property run (about 15 minutes per backend) runs with KARTLUDO_LONG_PROPERTIES=1")
@pytest.mark.parametrize("game_name", games())
@settings(_FAST, max_examples=4)
@given(data=st.data())
def test_random_play_never_shows_a_reader_a_secret_long(game_name, server, sse, store, db_url, td_token, data):
    """Whole matches (a game with short options, Laugavatnsmanni's and Svoi Kozyri's, ends
    after two deals: the seed becomes public), three deals of the others, the middle table
    size (three players at Svoi Kozyri)."""
    _property(game_name, server, sse, store, db_url, td_token, data, seats=seats(game_name), deals=3,
              last_deal_steps=1000)


# --- a duplicate board (issue 39) --------------------------------------------------------------
def _public_cards(game, mid: str, svc: MatchService, deck: set[str]) -> set[str]:
    """What the public may know of a match's deal now (the TD's knowledge: the game's public
    view and its events as the engine shows them to the public), were it not withheld."""
    from kartludo.app.matches.pipeline import fold_records
    from kartludo.engine.match import step

    records = svc.records(mid)
    state = fold_records(mid, records[:1]).state
    seen: set[str] = set()
    for r in records[1:]:
        seen |= cards_in(to_builtins(game.redact(state, r.event, PUBLIC)), deck)
        state = step(game, state, r.event)
    return seen | cards_in(game.view(svc.load(mid).state, PUBLIC), deck)


@pytest.mark.parametrize("game_name", games())
def test_a_duplicate_board_shows_no_reader_a_secret_until_every_table_has_played_it(game_name, server, sse, store,
                                                                                   td_token):
    """A board of a duplicate event (2 tables, 1 board) played over HTTP with the players'
    tokens: after every command, and after the board has ended at table 1 while table 2
    still has it to play, its own seats read (state, events, replay, legal, moves, live
    stream) no card another seat holds face down and never the board's deck, salt or
    seed; a player of the other table and the public read nothing of it (every match
    route refused, the traveller too); once table 2 has played it, anyone reads it."""
    from kartludo.app.duplicate.boards import after_command, load_duplicate

    game = get_game(game_name)
    n = seats(game_name, smallest=True)
    tables = [[f"{t}{s}" for s in "pqrs"[:n]] for t in "xy"]
    http = httpx.Client(base_url=server, timeout=60)
    seed = 4_567_890_123_456_789
    made = http.post("/duplicates", json={"game": game_name, "tables": tables, "boards": 1, "seed": seed,
                                          "options": short_options(game_name)}, headers=bearer(td_token))
    assert made.status_code == 201, made.text
    dup, tokens = made.json()["duplicate"], made.json()["tokens"]
    mid, other = made.json()["started"]
    svc = MatchService(store)
    created = load_duplicate(store, dup).created
    board_deck, salt = created.decks[0], created.salts[0]
    deck = set(board_deck)
    players = svc.load(mid).players
    own = {p: tokens[p] for p in players}
    strangers = {"other table": tokens[tables[1][0]], "public": None}
    streams = {p: sse(f"{server}/matches/{mid}/stream", bearer(t)) for p, t in own.items()}
    for name, token in strangers.items():
        refused = sse(f"{server}/matches/{mid}/stream", bearer(token))
        assert refused.status == 403, name
    held_ever: dict[str, set[str]] = {p: set() for p in players}
    hidden_seen: list[int] = []

    def no_secret(where: str, data, secret: set[str], descriptions: list[str] = ()) -> None:
        text = json.dumps(data)
        shown = cards_in(data, deck).union(*(words_in(d, deck) for d in descriptions)) & secret
        assert not shown, (where, sorted(shown))
        assert salt not in text and str(seed) not in text, (where, "the board's salt or the event's seed")
        assert json.dumps(board_deck) not in text, (where, "the board's deck")

    def check_all() -> None:
        match = svc.load(mid)
        hands, rest = hidden_now(game, match.state, list(board_deck))
        public = _public_cards(game, mid, svc, deck)
        for seat, p in enumerate(players):
            held_ever[p] |= set(hands[seat])
            secret = {c for i, h in enumerate(hands) if i != seat for c in h} | set(rest)
            secret -= held_ever[p] | public
            hidden_seen.append(len(secret))
            headers = bearer(own[p])
            for path in (f"/matches/{mid}", f"/matches/{mid}/state"):
                state = http.get(path, headers=headers).json()
                assert set(state.get("hands", {})) <= {p} and "seed" not in state, (p, path)
                assert state["board"] == {"duplicate": dup, "board": 1, "table": 1, "boards": 1}
                no_secret(f"{p} {path}", state, secret)
            events = http.get(f"/matches/{mid}/events", headers=headers).json()
            no_secret(f"{p} events", events, secret, [e["description"] for e in events])
            assert all(e["payload"].get("deck") != board_deck for e in events), (p, "the deck in an event")
            replay = http.get(f"/matches/{mid}/replay", headers=headers)
            assert replay.status_code == 200, replay.text
            assert not replay.json()["ended"], (p, "a withheld board's replay reads as running")
            no_secret(f"{p} replay", replay.json(), secret, [st_["description"] for st_ in replay.json()["steps"]])
            everyone = http.get(f"/matches/{mid}/replay", params={"view": "all"}, headers=headers)
            assert everyone.status_code in (403, 404) and not cards_in(everyone.json(), deck), (p, everyone.text)
            for path in (f"/matches/{mid}/legal", f"/matches/{mid}/moves"):
                r = http.get(path, headers=headers)
                assert r.status_code == 200, (p, path, r.text)
                no_secret(f"{p} {path}", r.json(), secret)
            streams[p].wait_for(events[-1]["position"])
            live = [m["data"] for m in streams[p].messages]
            no_secret(f"{p} stream", live, secret, [e["description"] for e in live])
        for name, token in strangers.items():
            headers = bearer(token)
            for path in (f"/matches/{mid}", f"/matches/{mid}/state", f"/matches/{mid}/events",
                         f"/matches/{mid}/replay", f"/matches/{mid}/legal", f"/matches/{mid}/moves",
                         f"/duplicates/{dup}/boards/1"):
                r = http.get(path, headers=headers)
                assert r.status_code in (401, 403, 404) and not cards_in(r.json(), deck), (name, path, r.text)
                assert set(r.json()) == {"type", "title", "status", "detail", "error", "rule"}, (name, path)
            progress = http.get(f"/duplicates/{dup}", headers=headers).json()
            no_secret(f"{name} progress", progress, deck)
            assert all(b["phase"] is None for t in progress["tables"] for b in t["boards"])
            no_secret(f"{name} standings", http.get(f"/duplicates/{dup}/standings", headers=headers).json(), deck)

    rng = random.Random(9)
    bot = heuristic(game_name)
    checked = 0
    check_all()
    for _ in range(2000):
        match = svc.load(mid)
        if match.over:
            break
        seat = game.to_act(match.state)[0]
        command = bot.choose(game, match.state, seat, game.legal_commands(match.state, seat), rng)
        verb, *args = command.text().split()
        r = http.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args},
                      headers=bearer(own[players[seat]]))
        assert r.status_code == 201, r.text
        check_all()
        checked += 1
    else:
        pytest.fail("the board did not end")
    assert checked > 5 and max(hidden_seen) > 0, "some cards were hidden"
    # the board has ended at table 1, table 2 still has it to play: nothing more is shown (checked above,
    # after the last command); table 2 plays it (the library, beside the service): it is public
    for _ in range(2000):
        match = svc.load(other)
        if match.over:
            break
        seat = game.to_act(match.state)[0]
        command = bot.choose(game, match.state, seat, game.legal_commands(match.state, seat), rng)
        svc.execute(other, svc.play(command), actor=match.players[seat])
        after_command(svc, other)
    for name, token in {**strangers, players[0]: own[players[0]]}.items():
        traveller = http.get(f"/duplicates/{dup}/boards/1", headers=bearer(token))
        assert traveller.status_code == 200 and traveller.json()["deck"] == board_deck, (name, traveller.text)
        events = http.get(f"/matches/{mid}/events", headers=bearer(token)).json()
        assert [e["payload"]["deck"] for e in events if e["type"] == "match.deal-started"] == [board_deck], name
    http.close()


@pytest.mark.parametrize("hands", [False, True], ids=["no-hands", "watch-hands"])
@pytest.mark.parametrize("game_name", games())
def test_a_watcher_learns_no_hidden_card(game_name, hands, server, sse, store, td_token):
    """A watcher (no token) of a match with a watch delay (issue 40): its state, events,
    replay and live stream never name a card of a hand or the stock that the public has
    not seen live (with ``watch_hands``: a card no seat has held, i.e. the stock), never
    carry the seed, a salt or a shuffle key while the deal runs, and never show a move
    before its delay has passed (``test_watchers`` checks where the cut lies)."""
    from kartludo.app.reading.reader import MatchReader

    game = get_game(game_name)
    players = every_game.players(game_name)
    http = httpx.Client(base_url=server, timeout=30)
    created = http.post("/matches", json={"game": game_name, "players": players, "seed": 11,
                                          "options": short_options(game_name), "watch_delay": "2",
                                          "watch_hands": hands}, headers=bearer(td_token)).json()
    mid, tokens = created["match"], created["tokens"]
    svc = MatchService(store)
    reader = MatchReader(svc)
    deck = set(game.deck(svc.load(mid).created.options))
    stream = sse(f"{server}/matches/{mid}/stream", {})
    live_public: set[str] = set()
    held_ever: set[str] = set()
    rng = random.Random(7)
    bot = heuristic(game_name)
    for _ in range(40):
        live = svc.load(mid)
        if game.is_finished(live.state):
            break
        # what the public has seen live (the TD's authority: no delay), and every hand held
        live_public |= cards_in(reader.state(live, PUBLIC, td=True), deck)
        live_public |= cards_in([msgspec.to_builtins(e) for e in reader.events(mid, PUBLIC, td=True)], deck)
        held_ever |= cards_in(svc.state_json(live, ALL)["hands"], deck)
        secret = (deck - live_public - held_ever) if hands else (deck - live_public)
        state = http.get(f"/matches/{mid}/state").json()
        events = http.get(f"/matches/{mid}/events").json()
        replay = http.get(f"/matches/{mid}/replay")
        steps = replay.json()["steps"] if replay.status_code == 200 else []
        shown = cards_in([state, events, steps], deck).union(*(words_in(st["description"], deck) for st in steps))
        assert not shown & secret, ("watcher", shown & secret)
        assert "seed" not in state
        if events:
            stream.wait_for(events[-1]["position"])
        live_msgs = [m["data"] for m in stream.messages]
        assert not cards_in(live_msgs, deck) & secret, ("stream", cards_in(live_msgs, deck) & secret)
        at_cut = reader.match_at(mid, state["version"]).state  # what the watcher sees: a deal ended there is public
        for e in [*events, *live_msgs]:
            deal = e["payload"].get("deal") if e["type"] == "match.deal-started" else None
            if deal is not None:  # the seed's shuffle keys: never while the match runs
                assert ":" not in str(e["payload"].get("shuffle")), e
            if deal is not None and deal == game.deal_number(at_cut) and not game.can_deal(at_cut):
                assert e["payload"]["salt"] == "", e
        if not hands:
            assert not state.get("hands")
        seat = game.to_act(live.state)[0]
        command = bot.choose(game, live.state, seat, game.legal_commands(live.state, seat), rng)
        verb, *args = command.text().split()
        r = http.post(f"/matches/{mid}/commands", json={"verb": verb, "args": args},
                      headers=bearer(tokens[players[seat]]))
        assert r.status_code == 201, r.text
    http.close()
