"""Groot2 on a lock-step match: each robot's tree at PORT + 2i, a breakpoint reached by one robot
standing the whole match still until it is unlocked, and ``--groot`` on ``soccerbt run``."""
from __future__ import annotations

import argparse
import json
import threading

import groot_client_spec as spec
import pytest
from lxml import etree

from soccerbt.__main__ import main
from soccerbt.gamecontroller.referee_common import RefereeConfig
from soccerbt.groot.robots import add_groot_argument, close_all, parse_groot, serve_match
from soccerbt.match import Match, MatchConfig

FAST = RefereeConfig(players_per_team=3, initial_s=0.2, ready_s=1.0, set_s=0.5)
JOIN_S = 60.0  # a safeguard against a hung test, not a time limit


def test_robot_i_of_the_robots_list_at_port_plus_2i(port) -> None:
    match = Match(MatchConfig(referee=FAST, duration_s=1.0, idle_teams=("blue",)))
    publishers, endpoints = serve_match(match, "127.0.0.1", port)
    try:
        robots = [str(r) for r in sorted(match.world.robots)]
        assert [e.robot for e in endpoints] == [r for r in robots if r.startswith("red")]
        assert all(e.port == port + 2 * robots.index(e.robot) for e in endpoints)  # idle blue keep theirs
        client = spec.Client(endpoints[0].port)
        try:
            assert client.statuses()  # red1's tree answers
            # the models of every node type the match's factory holds, used or not (tree.manifests)
            xml = etree.fromstring(client.request(spec.FULLTREE).parts[0])
            assert {m.get("ID") for m in xml.find("TreeNodesModel")} == set(match.factory.manifests())
        finally:
            client.close()
    finally:
        close_all(publishers)


def test_a_breakpoint_stands_the_whole_match_still_until_unlocked(port) -> None:
    match = Match(MatchConfig(referee=FAST, duration_s=2.0, idle_teams=("red",)))
    publishers, endpoints = serve_match(match, "127.0.0.1", port)
    client = spec.Client(endpoints[1].port)                 # blue2
    blue1, blue2, blue3 = (match.agent(name) for name in ("blue1", "blue2", "blue3"))
    try:
        for _ in range(3):
            match.step()
        root = blue2.tree.root.uid
        client.json_request(spec.HOOK_INSERT, spec.hook(root))
        before = match.world.t_s
        thread = threading.Thread(target=match.step, daemon=True)
        thread.start()
        assert client.notification()[1] == root
        assert thread.is_alive()
        # blue1 ticked this step, blue2 waits in its tick, blue3 has not had its turn
        assert blue1.now_s > before and blue2.now_s > before and blue3.now_s == pytest.approx(before)
        assert publishers[1].waiting_uid == root
        client.json_request(spec.BREAKPOINT_UNLOCK, {"uid": root, "position": 0, "desired_status": "SKIPPED",
                                                     "remove_when_done": True})
        thread.join(JOIN_S)
        assert not thread.is_alive() and blue3.now_s == pytest.approx(blue1.now_s)
        assert client.hooks() == []
        match.step()                                         # and the match goes on
        assert match.world.t_s > blue3.now_s - 1e-9
    finally:
        client.close()
        close_all(publishers)


def test_run_serves_every_robot_and_says_where(port, capsys) -> None:
    code = main(["run", "--headless", "--quiet", "--seconds", "0.3", "--team-size", "2", "--json",
                 "--groot", f"127.0.0.1:{port}"])
    assert code == 0
    out, err = capsys.readouterr()
    summary = json.loads(out)
    robots = [r["robot"] for r in summary["robots"]]
    assert [g["robot"] for g in summary["groot"]] == robots
    assert [g["port"] for g in summary["groot"]] == [port + 2 * i for i in range(len(robots))]
    assert all(g["publisher_port"] == g["port"] + 1 and g["host"] == "127.0.0.1" for g in summary["groot"])
    assert f"Groot2: {robots[0]} at 127.0.0.1:{port}" in err


def test_the_groot_option() -> None:
    parser = argparse.ArgumentParser()
    add_groot_argument(parser)
    assert parser.parse_args([]).groot is None
    assert parser.parse_args(["--groot"]).groot == ("127.0.0.1", 1667)
    assert parser.parse_args(["--groot", "1800"]).groot == ("127.0.0.1", 1800)
    assert parse_groot("0.0.0.0:1800") == ("0.0.0.0", 1800)
    for bad in ("x", ":1800", "0", "65535"):
        with pytest.raises(ValueError):
            parse_groot(bad)
