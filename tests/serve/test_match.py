"""A match of processes: ``soccerbt sim --serve booster --spawn --team-size 2`` plays a 2 v 2
with four ``soccerbt brain`` processes over Cyclone DDS on the simulated clock (all in a network
namespace of their own), while the scenario listens to the referee's GameController packets on
the wire as one more player would.

Three times real time keeps the test short; on a 2-core machine the five processes then share
the CPU so tightly that some of the brains' 10 ms slots pass without a step (the deadline misses
are reported; at 1x they are the benchmark's business, ``benchmarks/robot.py``). A goal in so
short a game depends on the timing of the processes, so the test asks for kicks, not goals.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

SECONDS, SPEED, SEED = 50, 3, 6


@pytest.fixture(scope="module")
def match(scenario: Callable[..., Any]) -> dict[str, Any]:
    r = scenario("match", "--team-size", "2", "--seconds", str(SECONDS), "--speed", str(SPEED), "--seed", str(SEED),
                 timeout_s=240)
    assert r["sim_exit"] == 0 and r["summary"] is not None, r["stderr"]
    return r


def test_four_brains_connected_and_stepped(match: dict[str, Any]) -> None:
    summary, brains = match["summary"], match["brains"]
    assert [r["robot"] for r in summary["robots"]] == ["blue1", "blue2", "red1", "red2"]
    for robot in summary["robots"]:
        name, brain = robot["robot"], robot["brain"]
        assert brain["connected"] is True and robot["tree"] == "brain", (robot, match["brain_logs"].get(name))
        # it stepped (how many of the 100 Hz slots it met is a timing figure: benchmarks/robot.py)
        assert brain["steps"] > 0, robot
        assert summary["served"]["requests"][name] > 0
        report = brains[name]
        assert report["robot"] == name and report["steps"] == brain["steps"]
        assert report["exceptions"] == 0 and report["node_exceptions"] == 0 and report["errors"] == [], report
        assert report["driver"]["stale_stops"] == 0 and report["driver"]["bad_values"] == 0, report["driver"]
        assert report["driver"]["error_responses"] == 0 and report["driver"]["responses"] > 0, report["driver"]
        assert isinstance(brain["deadline_misses"], int), (name, brain)  # reported; how many: benchmarks/robot.py
    assert summary["errors"] == [] and summary["served"]["bad_requests"] == 0


def test_the_game_went_through_ready_set_playing(match: dict[str, Any]) -> None:
    states = [s for s, _ in match["states"]]
    assert states[0] == "INITIAL", match["states"]
    order = [states.index(s) for s in ("READY", "SET", "PLAYING")]
    assert order == sorted(order), match["states"]
    served = match["summary"]["served"]
    # every packet the referee sent reached this listener on the wire, and every brain
    assert served["gc_packets"] > 0 and match["packets"] == {"packets": served["gc_packets"], "undecoded": 0}
    # a brain hears every packet sent once the game clock runs; of those sent while the sim waited
    # for the brains (twice a second), a brain that started late missed the ones before it listened
    after_wait = served["gc_packets"] - served["gc_packets_waiting"]
    assert 0 <= served["gc_packets_waiting"] < served["gc_packets"]
    for name, report in match["brains"].items():
        assert report["gc"]["accepted"] > 0.9 * after_wait and report["gc"]["dropped"] == 0, (name, report)
        assert report["gc"]["returns_sent"] > 0
    assert served["gc_returns"] > 0
    # the simulated seconds per wall second: never faster than asked (how far a busy machine lets
    # it slip behind is a timing figure: benchmarks/robot.py)
    assert 0 < served["real_time_factor"] <= SPEED * 1.02, served


def test_robots_walked_localized_and_kicked(match: dict[str, Any]) -> None:
    summary = match["summary"]
    for robot in summary["robots"]:
        assert robot["distance_walked_m"] > 1.0, robot
        # the poses the brains reported in their status messages against the truth
        assert robot["loc_error_median_m"] is not None and robot["loc_error_median_m"] < 0.5, robot
        assert robot["node_exceptions"] == 0
    kicks = sum(r["kicks"] for r in summary["robots"])
    assert kicks > 0 or summary["goals"], summary


def test_team_messages_travelled_over_udp(match: dict[str, Any]) -> None:
    served = match["summary"]["served"]
    assert served["team_messages"]["blue"] > 0 and served["team_messages"]["red"] > 0, served
    for name, report in match["brains"].items():
        team = report["team"]
        assert team["sent"] > 0 and team["received"] > 0 and team["dropped"] == 0, (name, team)
    # what the simulator counted is what the brains sent, team by team (but for a message each
    # brain may have sent after the simulator's last step)
    for colour in ("blue", "red"):
        brains = [r for n, r in match["brains"].items() if n.startswith(colour)]
        sent = sum(r["team"]["sent"] for r in brains)
        assert sent - len(brains) <= served["team_messages"][colour] <= sent, (colour, sent, served)
