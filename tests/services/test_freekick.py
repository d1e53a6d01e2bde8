"""The local free-kick phase of Booster's 2026 brain (soccerbt.services.freekick): its values
for given gc_* states, the robot's stillness and the positioning nodes' report."""
from __future__ import annotations

import math

import pytest

from soccerbt.services.freekick import LocalFreekickPhase


def gc(state="PLAY", kind="DIRECT_FREEKICK", stopped=False, ours=True, version=20, sub=None) -> dict:
    free = kind != "NONE"
    return {"gc_game_state": state, "gc_game_sub_state_type": "FREE_KICK" if free else "NONE",
            "gc_real_game_sub_state": kind, "gc_stopped": stopped,
            "gc_game_sub_state": sub if sub is not None else (("STOP" if stopped else "GET_READY") if free else "NONE"),
            "gc_is_sub_state_kickoff_side": free and ours, "gc_packet_version": version}


def still(fk: LocalFreekickPhase, t0: float, t1: float, dt: float = 0.1) -> float:
    t = t0
    while t < t1 - 1e-9:
        t = round(t + dt, 6)
        fk.update_motion(1.0, 2.0, 0.3, t)
    return t


@pytest.mark.parametrize("kind", ["DIRECT_FREEKICK", "INDIRECT_FREEKICK", "PENALTY_KICK", "THROW_IN",
                                  "GOAL_KICK", "CORNER_KICK"])
def test_every_set_play_in_play_uses_the_custom_phase(kind) -> None:
    fk = LocalFreekickPhase()
    assert fk.update(gc(kind=kind, stopped=True), 0.0) == "WAIT_RESUME" and fk.use_custom


@pytest.mark.parametrize("values", [gc(kind="NONE"), gc(state="READY"), gc(state="SET"), gc(state="INITIAL"),
                                    dict(gc(kind="NONE"), gc_game_sub_state_type="TIMEOUT")])
def test_no_set_play_or_not_playing_is_none(values) -> None:
    fk = LocalFreekickPhase()
    assert fk.update(values, 0.0) == "NONE" and not fk.use_custom


def test_kicking_side_hsl_wait_placement_unplacement_execute() -> None:
    fk = LocalFreekickPhase()
    assert fk.update(gc(stopped=True), 0.0) == "WAIT_RESUME"
    assert fk.update(gc(stopped=True), 3.0) == "WAIT_RESUME"  # stays while stopped
    assert fk.update(gc(), 5.0) == "PLACEMENT"  # play resumed
    # far from the target, or no valid target, or still moving: no change
    assert fk.update(gc(), 5.1, True, 2.0) == "PLACEMENT"
    fk.update_motion(0.0, 0.0, 0.0, 5.1)
    assert fk.update(gc(), 5.2, True, 0.3) == "PLACEMENT"  # not still for 0.8 s yet
    t = still(fk, 5.2, 6.0)
    assert not fk.move_stable
    t = still(fk, t, 6.2)
    assert fk.move_stable
    assert fk.update(gc(), t, False, 0.3) == "PLACEMENT"  # the target is not fresh
    assert fk.update(gc(), t, True, 0.36) == "PLACEMENT"  # beyond 0.35 m
    assert fk.update(gc(), t, True, 0.35) == "UNPLACEMENT"
    assert fk.update(gc(), t + 0.9, True, 0.35) == "UNPLACEMENT"
    assert fk.update(gc(), t + 1.0) == "EXECUTE"  # 1 s later
    assert fk.update(gc(), t + 5.0) == "EXECUTE"
    # the kick taken: the GameController ends the set play
    assert fk.update(gc(kind="NONE"), t + 6.0) == "NONE" and not fk.use_custom


def test_defending_side_stays_in_placement() -> None:
    fk = LocalFreekickPhase()
    fk.update(gc(ours=False, stopped=True), 0.0)
    assert fk.update(gc(ours=False), 1.0) == "PLACEMENT"
    t = still(fk, 1.0, 3.0)
    assert fk.update(gc(ours=False), t, True, 0.0) == "PLACEMENT"
    assert fk.update(gc(ours=False), t + 10.0, True, 0.0) == "PLACEMENT"


def test_stopped_again_goes_back_to_wait_resume_and_a_new_set_play_restarts() -> None:
    fk = LocalFreekickPhase()
    fk.update(gc(stopped=True), 0.0)
    fk.update(gc(), 1.0)
    t = still(fk, 1.0, 2.0)
    assert fk.update(gc(), t, True, 0.1) == "UNPLACEMENT"
    assert fk.update(gc(stopped=True), t + 0.5) == "WAIT_RESUME"
    assert fk.update(gc(), t + 1.0) == "PLACEMENT"
    # another set play (the other team's throw-in) without a NONE in between: entered afresh
    assert fk.update(gc(kind="THROW_IN", ours=False), t + 2.0) == "WAIT_RESUME"
    assert fk.update(gc(kind="THROW_IN", ours=False), t + 2.1) == "PLACEMENT"


def test_a_set_play_entered_while_play_runs_waits_one_update() -> None:
    fk = LocalFreekickPhase()
    assert fk.update(gc(), 0.0) == "WAIT_RESUME"  # on entering
    assert fk.update(gc(), 0.01) == "PLACEMENT"


def test_hl_v12_set_is_a_freeze_and_never_executes() -> None:
    fk = LocalFreekickPhase()
    v12 = dict(version=12)
    assert fk.update(gc(stopped=True, sub="STOP", **v12), 0.0) == "WAIT_RESUME"
    assert fk.update(gc(sub="GET_READY", **v12), 5.0) == "PLACEMENT"
    t = still(fk, 5.0, 6.0)
    assert fk.update(gc(sub="GET_READY", **v12), t, True, 0.2) == "UNPLACEMENT"
    assert fk.update(gc(sub="GET_READY", **v12), t + 5.0) == "UNPLACEMENT"  # no EXECUTE under v12
    fk2 = LocalFreekickPhase()
    fk2.update(gc(ours=False, stopped=True, sub="STOP", **v12), 0.0)
    fk2.update(gc(ours=False, sub="GET_READY", **v12), 5.0)
    assert fk2.update(gc(ours=False, sub="SET", **v12), 20.0) == "UNPLACEMENT"  # the freeze
    assert fk2.update(gc(kind="NONE", sub="", **v12), 22.0) == "NONE"


def test_stillness_breaks_on_motion_and_falls() -> None:
    fk = LocalFreekickPhase()
    t = still(fk, 0.0, 1.0)
    assert fk.move_stable
    fk.update_motion(1.03, 2.0, 0.3, t + 0.1)  # 3 cm
    assert not fk.move_stable
    t = still(fk, t + 0.1, t + 1.0)
    fk.update_motion(1.0, 2.0, 0.3 + 0.06, t + 0.1)  # 0.06 rad
    assert not fk.move_stable
    t = still(fk, t + 0.1, t + 1.0)
    assert fk.move_stable
    fk.update_motion(1.0, 2.0, 0.3, t + 0.1, fallen=True)
    assert not fk.move_stable
    assert math.isfinite(fk.now_s)
