"""A served match run in this process (``ServedMatch`` on Cyclone DDS, no referee, 1 v 1) with
blue1 driven by ``soccerbt brain`` processes started here, walking a circle (trees/walk.xml):

1. brain A connects, the robot walks;
2. the robot is knocked over (``World.knock_over``): A's GetUp requests arrive and it stands;
3. A gets SIGKILL: how long (simulated) until the robot stands still;
4. brain B starts and takes the robot over: it walks again;
5. B gets SIGTERM: the requests it sends on the way out (seen by a Cyclone subscriber of
   ``LocoApiTopic/blue1Req`` of our own), its exit code and its JSON report;
6. bad loco requests to red1 (broken JSON, missing fields, NaN, ...): their answers and counts.

The match steps at ``speed`` times real time (1 by default), the truth read after every step.
Prints one JSON object."""
from __future__ import annotations

import json
import math
import signal
import sys
import tempfile
import time
from pathlib import Path

from _common import TREES, Proc, emit, soccerbt

from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.connect import open_transport
from soccerbt.drivers.booster.cyclone import ddspy_write
from soccerbt.match import MatchConfig
from soccerbt.serve.served import CATCH_UP_LIMIT_S, ServedMatch
from soccerbt.world.types import RobotId, Team

BLUE1 = RobotId(Team.BLUE, 1)
RED1 = RobotId(Team.RED, 1)
MOVE = '{"api_id":2001}'
BAD_REQUESTS = [  # (header, body): status 400 each, but the last (404)
    ("{broken", '{"vx":0.3,"vy":0.0,"vyaw":0.0}'),
    ("", ""),
    ('{"api_id":"2001"}', '{"vx":0.3,"vy":0.0,"vyaw":0.0}'),
    ('{"api_id":true}', '{"vx":0.3,"vy":0.0,"vyaw":0.0}'),
    ('[2001]', '{"vx":0.3,"vy":0.0,"vyaw":0.0}'),
    (MOVE, "{broken"),
    (MOVE, '{"vx":0.3}'),
    (MOVE, '{"vx":NaN,"vy":0.0,"vyaw":0.0}'),
    (MOVE, '{"vx":Infinity,"vy":0.0,"vyaw":0.0}'),
    (MOVE, '{"vx":1e999,"vy":0.0,"vyaw":0.0}'),
    (MOVE, '{"vx":1e30,"vy":0.0,"vyaw":0.0}'),
    (MOVE, '{"vx":"fast","vy":0.0,"vyaw":0.0}'),
    (MOVE, '{"vx":true,"vy":0.0,"vyaw":0.0}'),
    (MOVE, "null"),
    (MOVE, "[" * 5000),
    ('{"api_id":2004}', '{"pitch":NaN,"yaw":0.0}'),
    ('{"api_id":2000}', '{"mode":99}'),
    ('{"api_id":2038}', '{"start":"yes"}'),
    ('{"api_id":9999}', "{}"),
]
WALKING_MPS = 0.2


LOG_DIR = Path(tempfile.mkdtemp(prefix="soccerbt-flight-"))


def brain() -> Proc:
    """A brain with its flight recorder on (into LOG_DIR: the killed one's log must open)."""
    return Proc(soccerbt("brain", "--robot", "blue1", "--name", "blue1", "--sim-time",
                         "--tree", str(TREES / "walk.xml"), "--team-size", "1", "--team-address", "127.255.255.255",
                         "--gc-port", "3838", "--json", "--log-dir", str(LOG_DIR)))


class Stepper:
    """Steps the served match at ``speed`` times real time (``ServedMatch.run``'s pacing, one
    step at a time), noting blue1's requests."""

    def __init__(self, served: ServedMatch, speed: float, requests: object) -> None:
        self.served, self.speed, self.requests = served, speed, requests
        self.world = served.world
        self.seen: list[tuple[float, int, str]] = []  # (t, api id, body) of blue1's requests
        self._wall0, self._t0 = time.monotonic(), served.t_s

    def restart_pacing(self) -> None:
        self._wall0, self._t0 = time.monotonic(), self.served.t_s

    def state(self):
        return self.world.robots[BLUE1]

    def speed_mps(self) -> float:
        s = self.state()
        return math.hypot(getattr(s, "vx_mps", 0.0), getattr(s, "vy_mps", 0.0))

    def step(self) -> None:
        self.served.match.step()
        t = self.served.t_s
        for req in self.requests.take(256):
            try:
                api = json.loads(req.header)["api_id"]
            except (ValueError, KeyError, TypeError):
                api = -1
            self.seen.append((t, api, req.body))
        due = self._wall0 + (t - self._t0) / self.speed
        ahead = due - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)
        elif ahead < -CATCH_UP_LIMIT_S:  # late: go on from now, as ServedMatch.run does (no burst)
            self.restart_pacing()

    def until(self, condition, max_s: float) -> float | None:
        """Simulated seconds until ``condition()`` held after a step; None after ``max_s``."""
        start = self.served.t_s
        while self.served.t_s - start < max_s:
            self.step()
            if condition():
                return round(self.served.t_s - start, 3)
        return None


def main() -> None:
    speed = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    out: dict[str, object] = {}
    transport = open_transport("cyclone", domain=0)
    served = ServedMatch(MatchConfig(team_size=1, seed=2), transport, refereed=False)
    requests = transport.subscription("LocoApiTopic/blue1Req", m.RpcReqMsg, "command", depth=256)
    ep = served.endpoints[BLUE1]
    world = served.world
    run = Stepper(served, speed, requests)

    # 1. brain A connects and walks the robot
    a = brain()
    t0 = time.monotonic()
    out["a_connected"] = sorted(str(r) for r in served.wait_for_brains([BLUE1], 60))
    out["a_connect_wall_s"] = round(time.monotonic() - t0, 2)
    run.restart_pacing()
    out["a_walking_after_s"] = run.until(lambda: run.speed_mps() > WALKING_MPS, 10)

    # 2. knocked over: GetUp requests, the robot stands, walks again
    ups_before = ep.counters.get_ups
    world.knock_over(BLUE1)
    out["knocked_over"] = run.state().fallen
    out["get_up_request_after_s"] = run.until(lambda: ep.counters.get_ups > ups_before, 10)
    out["standing_after_s"] = run.until(lambda: not run.state().fallen, 20)
    out["get_ups"] = ep.counters.get_ups - ups_before
    out["walking_again_after_s"] = run.until(lambda: run.speed_mps() > WALKING_MPS, 10)
    out["falls"] = world.robots[BLUE1].falls

    # 3. SIGKILL: the robot stands once the brain has been silent for 0.5 s
    a.signal(signal.SIGKILL)
    a.wait(10)
    t_kill = served.t_s
    last_move_t = t_kill
    prev = run.state().pose
    while served.t_s - t_kill < 2.5:
        run.step()
        pose = run.state().pose
        if math.hypot(pose.x_m - prev.x_m, pose.y_m - prev.y_m) > 1e-6 or abs(pose.theta_rad - prev.theta_rad) > 1e-6:
            last_move_t = served.t_s
        prev = pose
    out["kill"] = {"exit": a.proc.returncode, "still_after_s": round(last_move_t - t_kill, 3),
                   "connected": ep.connected(served.t_s), "tracebacks": "Traceback" in a.stderr}
    stand_pose = run.state().pose

    # 4. brain B takes the robot over
    b = brain()
    t0 = time.monotonic()
    out["b_connected"] = sorted(str(r) for r in served.wait_for_brains([BLUE1], 60))
    out["b_connect_wall_s"] = round(time.monotonic() - t0, 2)
    out["pose_unchanged_until_b"] = run.state().pose == stand_pose
    run.restart_pacing()
    out["b_walking_after_s"] = run.until(lambda: run.speed_mps() > WALKING_MPS, 10)

    # 5. SIGTERM: the stop goes out, the brain exits with its report
    run.until(lambda: False, 0.3)
    run.seen.clear()
    t_term = served.t_s
    b.signal(signal.SIGTERM)
    wall_term = time.monotonic()
    code = None
    while code is None and time.monotonic() - wall_term < 10:
        run.step()
        code = b.proc.poll()
    exit_wall_s = time.monotonic() - wall_term
    run.until(lambda: False, 0.3)  # the last requests arrive
    b.finish(5)
    report = b.last_json()
    moves = [(round(t - t_term, 3), body) for t, api, body in run.seen if api == 2001]
    heads = [(round(t - t_term, 3), body) for t, api, body in run.seen if api == 2004]
    out["term"] = {"exit": code, "exit_wall_s": round(exit_wall_s, 3), "moves": moves[-5:], "heads": heads[-3:],
                   "apis": [api for _, api, _ in run.seen][-6:], "report": report,
                   "tracebacks": "Traceback" in b.stderr, "stderr": b.stderr[-1500:]}
    run.until(lambda: False, 0.5)
    out["term"]["speed_after_stop_mps"] = run.speed_mps()

    # 6. bad loco requests to red1 (no brain): each answered with its status, counted, ignored
    red = served.endpoints[RED1]
    bad_pub = transport.publisher("LocoApiTopic/red1Req", m.RpcReqMsg, "command")
    answers = transport.subscription("LocoApiTopic/red1Resp", m.RpcRespMsg, "response", depth=64)
    run.until(lambda: bad_pub.matched() > 0 and answers.matched() > 0, 5)
    sent = {}
    for i, (header, body) in enumerate(BAD_REQUESTS):
        uuid = f"bad-{i}"
        sent[uuid] = [header[:60], body[:60]]
        bad_pub.publish(m.RpcReqMsg(uuid=uuid, header=header, body=body))
    # CDR that Cyclone passes and the decoder refuses (a uuid that is not UTF-8), and garbage
    cdr = m.RpcReqMsg(uuid="QQ", header=MOVE, body="{}").encode().replace(b"QQ\x00", b"\xff\xfe\x00")
    raw_codes = [ddspy_write(bad_pub._ref, cdr + b"\0" * ((-len(cdr)) % 4)),
                 ddspy_write(bad_pub._ref, b"\x00\x01\x00\x00" + b"\xff" * 8)]
    got: dict[str, str] = {}

    def answered() -> bool:
        for resp in answers.take(64):
            got[resp.uuid] = resp.header
        return len(got) >= len(sent)

    out["bad_answered_after_s"] = run.until(answered, 3)
    t_bad = served.t_s
    run.until(lambda: False, 0.5)  # the simulator keeps going
    out["bad"] = {"sent": sent, "answers": got, "bad_requests": red.counters.bad_requests,
                  "unknown_api": red.counters.unknown_api,
                  "dropped": red.counters.dropped, "raw_codes": raw_codes, "requests": red.counters.requests,
                  "moves": red.counters.moves, "walk": list(red.walk), "mode": red.mode,
                  "stepped_after_s": round(served.t_s - t_bad, 3),
                  "red1_moved": world.robots[RED1].distance_walked_m}
    out["requests"] = {"bad": ep.counters.bad_requests, "unknown": ep.counters.unknown_api,
                       "total": ep.counters.requests}
    out["sim_t_s"] = round(served.t_s, 2)
    out["flight_logs"] = sorted(str(p) for p in LOG_DIR.glob("*.mcap"))
    a.finish(5)
    served.close()
    emit(out)


if __name__ == "__main__":
    main()
