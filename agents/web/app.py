"""``shengji-web``: a browser table — play one seat against agents, or watch a saved game.

    shengji-web [--host 127.0.0.1] [--port 8765] [--save-games DIR] [--games DIR]
                [--agent-dir DIR ...] [--allow-import]

A small Starlette app served by uvicorn: one static page (``static/index.html`` with its CSS
and JS, no build step), a WebSocket ``/ws`` for the game stream, and ``/api/*`` for the replay
viewer. The page is never trusted: every message is parsed and checked here, every action is
checked against the engine's legal mask, and a bad message gets ``{"type": "error"}`` back,
never a crash. Agent decisions run in worker threads, off the event loop. The page may name
only built-in agents (number/boolean options), checkpoints and run folders under ``--agent-dir``
(default ``runs``), and ``module:attr`` only with ``--allow-import`` (``agents.web.allowed``).

WebSocket messages (JSON objects, ``type`` first):

page → server   ``new`` {agents: [spec × 4] (your seat's ignored), seat: 0-3, decks: 1-4,
                episode: "hand"|"match", seed: int|null, rules: {option: value}, delay: s}
                ``act`` {action: id} (a card id 0-53, 54 pass, 55 end a lead, declarations…,
                find-friends: ``legal.friend_base`` + a card id names the friend card)
                ``undo`` / ``clear`` (cards of an unfinished play or bury)
server → page   ``hello`` {card_names, limits, agents, allowed}; ``state`` {view, legal, events,
                you};
                ``over`` {view, events, result, log (the GameLog, replayable)};
                ``error`` {message}
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

try:  # the web extra; without it ``shengji-web`` says so in one line (main), not a traceback
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles
    from starlette.websockets import WebSocket, WebSocketDisconnect
except ImportError as e:
    _MISSING: ImportError | None = e
else:
    _MISSING = None

from shengji_env import Rules
from shengji_env.cli import OneLineParser
from shengji_env.gamelog import GameLog
from shengji_env.session import Session

from ..specs import resolve
from .allowed import SpecPolicy
from .views import CARD_NAMES, event_json, legal_view, replay_frames, story_items, table_view

STATIC = Path(__file__).parent / "static"


@dataclass(frozen=True)
class Limits:
    """What one server allows (numbers the tests check)."""

    max_games: int = 8               # concurrent games (WebSockets holding a game)
    max_message: int = 64 * 1024     # bytes of one message (and of an uploaded game log × 32)
    idle_seconds: float = 30 * 60    # a game with no message for this long is closed
    max_seed: int = 2 ** 31 - 1
    max_delay: float = 2.0           # seconds between agents' moves, as asked by the page


class BadMessage(ValueError):
    """A message the server refuses; its text goes back to the page."""


def _field(msg: dict, key: str, kind, default=None, required=False):
    if key not in msg:
        if required:
            raise BadMessage(f"message {msg.get('type')!r} needs {key!r}")
        return default
    v = msg[key]
    if kind is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise BadMessage(f"{key!r} must be an integer, got {json.dumps(v)[:40]}")
    if kind is float and (isinstance(v, bool) or not isinstance(v, (int, float))):
        raise BadMessage(f"{key!r} must be a number, got {json.dumps(v)[:40]}")
    if kind not in (int, float) and not isinstance(v, kind):
        raise BadMessage(f"{key!r} must be a {kind.__name__}, got {json.dumps(v)[:40]}")
    return v


def parse_message(text: str, limits: Limits) -> dict:
    """A page's message as a dict with a known ``type``; ``BadMessage`` says what is wrong."""
    if len(text.encode()) > limits.max_message:
        raise BadMessage(f"message of {len(text.encode())} bytes; the limit is "
                         f"{limits.max_message}")
    try:
        msg = json.loads(text)
    except ValueError:
        raise BadMessage("message is not JSON") from None
    except RecursionError:  # '[' * 30000 fits the size limit; it ended the game (code 1011)
        raise BadMessage("message is nested too deeply to be a game message") from None
    if not isinstance(msg, dict):
        raise BadMessage("message must be a JSON object with a 'type'")
    if msg.get("type") not in ("new", "act", "undo", "clear"):
        raise BadMessage(f"unknown message type {json.dumps(msg.get('type'))[:40]}; expected "
                         "new, act, undo or clear")
    return msg


def new_game_options(msg: dict, limits: Limits) -> dict:
    """Check a ``new`` message; returns the Session's arguments (agents still as specs)."""
    seat = _field(msg, "seat", int, 0)
    if not 0 <= seat <= 3:
        raise BadMessage(f"seat {seat} is not a seat; expected 0-3")
    specs = _field(msg, "agents", list, ["random"] * 4)
    if len(specs) != 4 or not all(isinstance(x, str) and 0 < len(x) <= 500 for x in specs):
        raise BadMessage("agents must be a list of 4 agent specs (strings), e.g. "
                         '["random", "heuristic", "random", "heuristic"]')
    decks = _field(msg, "decks", int, 2)
    if decks not in (1, 2, 3, 4):
        raise BadMessage(f"decks {decks}; expected 1-4")
    episode = _field(msg, "episode", str, "hand")
    if episode not in ("hand", "match"):
        raise BadMessage(f"episode {episode!r}; expected 'hand' or 'match'")
    seed = msg.get("seed")
    if seed is None:
        seed = random.randrange(limits.max_seed)
    seed = _field({"seed": seed}, "seed", int)
    if not 0 <= seed <= limits.max_seed:
        raise BadMessage(f"seed {seed}; expected 0-{limits.max_seed}")
    options = _field(msg, "rules", dict, {})
    if "decks" in options:  # Rules() said "got multiple values for keyword argument 'decks'"
        raise BadMessage(f"rules.decks={json.dumps(options['decks'])[:40]}: give the number of "
                         "decks as the message's 'decks' field, not as a rules option")
    try:
        rules = Rules(decks=decks, **options)
    except (TypeError, ValueError) as e:
        raise BadMessage(f"rules: {e}") from None
    delay = float(_field(msg, "delay", float, 0.3))
    if not 0 <= delay <= limits.max_delay:
        raise BadMessage(f"delay {delay}; expected 0-{limits.max_delay} seconds")
    return {"seat": seat, "specs": specs, "rules": rules, "episode": episode, "seed": seed,
            "delay": delay}


def create_app(limits: Limits | None = None, save_games: str | None = None,
               games_dir: str | None = None, policy: SpecPolicy | None = None) -> Starlette:
    """The ASGI app. ``save_games``: write every finished game's log there; ``games_dir``:
    saved logs the viewer lists (default: ``save_games``); ``policy``: the agent specs the page
    may ask for (default: built-ins and ``runs/``, no ``module:attr``)."""
    limits = limits or Limits()
    policy = policy or SpecPolicy()
    games_dir = games_dir or save_games
    live: set[int] = set()  # ids of the WebSockets that hold a game

    async def index(request: Request):
        return FileResponse(STATIC / "index.html")

    async def info(request: Request):
        return JSONResponse({"card_names": CARD_NAMES, "agents": policy.describe()["names"],
                             "allowed": policy.describe(), "limits": vars(limits),
                             "games": len(live)})

    async def list_games(request: Request):
        if not games_dir or not Path(games_dir).is_dir():
            return JSONResponse({"games": []})
        names = sorted((p.name for p in Path(games_dir).glob("*.json")), reverse=True)[:200]
        return JSONResponse({"games": names})

    async def get_game(request: Request):
        name = request.path_params["name"]
        folder = Path(games_dir or "")
        path = folder / name
        if not games_dir or Path(name).name != name or not name.endswith(".json") or \
                not path.is_file():
            return JSONResponse({"error": f"no saved game {name!r}"}, status_code=404)
        return await _frames_response(path.read_bytes())

    async def post_replay(request: Request):
        body = await request.body()
        return await _frames_response(body)

    async def _frames_response(body: bytes):
        if len(body) > 32 * limits.max_message:
            return JSONResponse({"error": f"game log of {len(body)} bytes; the limit is "
                                          f"{32 * limits.max_message}"}, status_code=413)
        try:
            log = GameLog.from_json(json.loads(body))
            frames = await asyncio.to_thread(replay_frames, log)
        except (ValueError, TypeError, KeyError) as e:
            return JSONResponse({"error": f"cannot replay this game log: {e}"}, status_code=400)
        except RecursionError:  # '[' * 100000 fits the size limit; it was a 500
            return JSONResponse({"error": "cannot replay this game log: it is nested too deeply "
                                          "to be one"}, status_code=400)
        return JSONResponse(frames)

    async def ws_endpoint(ws: WebSocket):
        await ws.accept()
        await ws.send_json({"type": "hello", "card_names": CARD_NAMES, "limits": vars(limits),
                            "agents": policy.describe()["names"],
                            "allowed": policy.describe()})
        table = _Table(ws, limits, save_games, policy)
        try:
            while True:
                try:
                    text = await asyncio.wait_for(ws.receive_text(), limits.idle_seconds)
                except TimeoutError:
                    await ws.send_json({"type": "error", "message": "game closed after "
                                        f"{limits.idle_seconds:g} idle seconds"})
                    await ws.close(code=1000)
                    return
                except KeyError:  # a binary frame: receive_text finds no "text"
                    await ws.send_json({"type": "error", "message": "send text (JSON) messages"})
                    continue
                try:
                    msg = parse_message(text, limits)
                    if msg["type"] == "new" and id(ws) not in live and \
                            len(live) >= limits.max_games:
                        raise BadMessage(f"the server is busy: {limits.max_games} games are "
                                         "running; try again later")
                    await table.handle(msg)
                    if table.sess is not None:
                        live.add(id(ws))
                except BadMessage as e:
                    await ws.send_json({"type": "error", "message": str(e)})
        except WebSocketDisconnect:
            pass
        except Exception:  # noqa: BLE001 - a broken connection or a bug: end this game only
            logging.getLogger(__name__).exception("game ended by an error")
            with contextlib.suppress(Exception):
                await ws.close(code=1011)
        finally:
            live.discard(id(ws))
            table.close()

    app = Starlette(routes=[
        Route("/", index), Route("/api/info", info), Route("/api/games", list_games),
        Route("/api/games/{name}", get_game), Route("/api/replay", post_replay, methods=["POST"]),
        WebSocketRoute("/ws", ws_endpoint),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
    app.state.live = live
    app.state.limits = limits
    app.state.policy = policy
    return app


class _Table:
    """One page's game: a ``Session`` and its delivery over the WebSocket."""

    def __init__(self, ws: WebSocket, limits: Limits, save_games: str | None,
                 policy: SpecPolicy):
        self.ws, self.limits, self.save_games, self.policy = ws, limits, save_games, policy
        self.sess: Session | None = None
        self.delay = 0.0
        self.closed = False

    def close(self):
        self.closed = True
        self.sess = None

    async def handle(self, msg: dict):
        kind = msg["type"]
        if kind == "new":
            opts = new_game_options(msg, self.limits)
            agents = []
            for i, spec in enumerate(opts["specs"]):
                if i == opts["seat"] or spec == "random":
                    agents.append(None)
                    continue
                try:
                    allowed = self.policy.check(spec)
                except ValueError as e:
                    raise BadMessage(f"agent for seat {i}: {e}") from None
                try:  # a checkpoint loads torch: off the event loop
                    agents.append(await asyncio.to_thread(resolve, allowed, opts["rules"]))
                except Exception as e:  # noqa: BLE001 - any failure of a spec is the page's
                    raise BadMessage(f"agent {spec!r} for seat {i}: {e}") from None
            self.sess = Session(opts["rules"], opts["seed"], agents, human=opts["seat"],
                                episode=opts["episode"], specs=opts["specs"])
            self.delay = opts["delay"]
            await self.send_state([])
            await self.run_agents()
            return
        if self.sess is None:
            raise BadMessage("no game yet: send {\"type\": \"new\"} first")
        if self.sess.done:
            raise BadMessage("the game is over: start a new one")
        if kind == "act":
            action = _field(msg, "action", int, required=True)
            if not self.sess.human_to_act:
                raise BadMessage("it is not your turn")
            try:
                events = self.sess.step(action)
            except ValueError as e:
                raise BadMessage(f"illegal action: {e}") from None
            await self.send_state(events)
            await self.run_agents()
        elif kind in ("undo", "clear"):
            ok = self.sess.undo() if kind == "undo" else self.sess.clear()
            if not ok:
                raise BadMessage("nothing to take back: no card of this play is selected")
            await self.send_state([])

    async def run_agents(self):
        """Agents act, one decision per worker-thread call; the page gets a state after each
        complete move (paced by ``delay``) and the result at the end."""
        sess = self.sess
        while sess is self.sess and not self.closed and not sess.done and not sess.human_to_act:
            events = await asyncio.to_thread(sess.run_agents, 1)
            if sess is not self.sess or self.closed:
                return
            if not int(sess.state.selection[0].sum()):
                await self.send_state(events)
                if self.delay:
                    await asyncio.sleep(self.delay)
        if sess is self.sess and sess.done:
            await self.send_over()

    def _view(self):
        sess = self.sess
        return table_view(sess.eng, sess.state, sess.human, sess.events)

    async def send_state(self, events):
        sess = self.sess
        await self.ws.send_json({
            "type": "state", "you": sess.human, "view": self._view(),
            "legal": legal_view(sess) if sess.human_to_act else None,
            "events": [event_json(e) for e in events]})

    async def send_over(self):
        sess = self.sess
        log = sess.game_log()
        saved = None
        if self.save_games:
            saved = (await asyncio.to_thread(log.save, self.save_games)).name
        mine = float(sess.total[sess.human])
        await self.ws.send_json({
            "type": "over", "you": sess.human, "view": self._view(), "log": log.to_json(),
            "reward": mine, "saved": saved,
            "episode": sess.eng.episode,
            "story": story_items(sess.events)})


def _check_args(p: argparse.ArgumentParser, args) -> None:
    """What uvicorn would turn into a traceback or the page into a puzzle: a port outside
    1-65535, ``--max-games 0`` (every game refused as "the server is busy"), an empty host or
    a file where a folder is meant."""
    if not 1 <= args.port <= 65535:
        p.error(f"--port {args.port}: expected a port 1-65535")
    if args.max_games < 1:
        p.error(f"--max-games {args.max_games}: expected an int >= 1 (concurrent games)")
    if not args.host.strip():
        p.error(f"--host {args.host!r}: expected an address such as 127.0.0.1")
    # uvicorn's own failure came after "open http://..." was printed, as "ERROR: [Errno -2] Name
    # or service not known" (no host named) and exit status 3
    try:
        family, kind, proto, _, address = socket.getaddrinfo(  # the family uvicorn binds
            args.host, args.port, socket.AF_INET6 if ":" in args.host else socket.AF_INET,
            socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as e:
        p.error(f"--host {args.host!r}: not an address of this machine's network "
                f"({getattr(e, 'strerror', None) or e})")
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as e:
            p.error(f"--host {args.host} --port {args.port}: cannot listen there "
                    f"({e.strerror or e}); is another server using the port?")
    for flag, value in (("--save-games", args.save_games), ("--games", args.games),
                        *(("--agent-dir", d) for d in args.agent_dir or [])):
        if value is not None and (not value.strip() or Path(value).is_file()):
            p.error(f"--{flag.lstrip('-')} {value!r}: expected a folder"
                    + (" (it is a file)" if value.strip() else ""))


def main(argv=None) -> int:
    p = OneLineParser(prog="shengji-web", description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default "
                   "127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--save-games", metavar="DIR", help="write every finished game's log to DIR")
    p.add_argument("--games", metavar="DIR", help="saved game logs the viewer lists (default: "
                   "--save-games)")
    p.add_argument("--max-games", type=int, default=Limits.max_games)
    p.add_argument("--agent-dir", action="append", metavar="DIR",
                   help="a folder whose checkpoints and run folders the page may load (repeat "
                   "for several; default: runs)")
    p.add_argument("--allow-import", action="store_true",
                   help="let the page name 'module:attr' agents and string options: imports "
                   "any module the server can see; only for a page you trust")
    args = p.parse_args(argv)
    _check_args(p, args)
    try:
        if _MISSING is not None:
            raise _MISSING
        import uvicorn
    except ImportError as e:
        print(f"shengji-web: the web table needs the 'web' extra: pip install 'shengji-rl[web]' "
              f"({e})", file=sys.stderr)
        return 2

    policy = SpecPolicy(tuple(Path(d) for d in (args.agent_dir or ["runs"])), args.allow_import)
    app = create_app(Limits(max_games=args.max_games), args.save_games, args.games, policy)
    print(f"shengji-web: open http://{args.host}:{args.port}/  (Ctrl-C stops)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning",
                    ws_max_size=4 * Limits.max_message)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
