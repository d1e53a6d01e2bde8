"""The blackboard key schema: complete, typed, and used as the factory's key check."""
from __future__ import annotations

import pytest

from soccerbt.blackboard.schema import (
    SCHEMA,
    WRITERS,
    check_value,
    default_blackboard_values,
    keys_written_by,
    schema_keys,
)

BOOSTER_KEYS = ("control_state", "go_manual", "assist_chase", "assist_kick", "odom_calibrated",
                "ball_location_known", "ball_out", "tm_ball_pos_reliable", "player_role", "decision",
                "is_lead", "wait_for_opponent_kickoff")
GC_KEYS = ("gc_game_state", "gc_game_sub_state_type", "gc_game_sub_state", "gc_game_phase", "gc_set_play",
           "gc_is_kickoff_side", "gc_is_sub_state_kickoff_side", "gc_is_under_penalty", "gc_score",
           "gc_opponent_score", "gc_secs_remaining", "gc_secondary_time", "gc_connected")


def test_every_key_the_trees_and_adapters_use_is_declared() -> None:
    from soccerbt.gamecontroller.adapter import GC_KEYS as ADAPTER_KEYS

    for key in BOOSTER_KEYS + GC_KEYS + tuple(ADAPTER_KEYS):
        assert key in SCHEMA, key
    for key in ("robot_pose_field", "ball_field", "ball_robot", "ball_last_seen_s"):
        assert SCHEMA[key].writer == "world_model"
    assert all(spec.writer in WRITERS for spec in SCHEMA.values())
    assert len(schema_keys()) == len(set(schema_keys()))


def test_defaults_have_their_declared_types() -> None:
    defaults = default_blackboard_values()
    assert set(defaults) == set(SCHEMA)
    for key, value in defaults.items():
        check_value(key, value)
    assert defaults["control_state"] == 3 and defaults["gc_game_state"] == "INITIAL"
    assert defaults["player_role"] == "striker" and defaults["ball_location_known"] is False


def test_check_value_rejects_unknown_keys_and_wrong_types() -> None:
    with pytest.raises(KeyError, match="bal_out"):
        check_value("bal_out", True)
    with pytest.raises(TypeError, match="gc_game_state"):
        check_value("gc_game_state", 3)
    with pytest.raises(TypeError):
        check_value("control_state", True)
    check_value("control_state", 3.0)  # a BT.CPP script's integral double
    check_value("ball_location_known", 1.0)  # script booleans are numbers
    with pytest.raises(TypeError):
        check_value("ball_distance_m", "far")


def test_keys_by_writer() -> None:
    assert set(keys_written_by("gamepad")) == {"control_state", "go_manual", "assist_chase", "assist_kick"}
    assert "wait_for_opponent_kickoff" in keys_written_by("world_model")
    with pytest.raises(ValueError):
        keys_written_by("nobody")


def test_booster_2026_keys_are_declared_with_their_writers() -> None:
    world_model = set(keys_written_by("world_model"))
    assert {"local_freekick_use_custom", "local_freekick_phase", "local_freekick_move_stable"} <= world_model
    nodes = set(keys_written_by("nodes"))
    assert {"local_freekick_target_valid", "local_freekick_target_error"} <= nodes
    assert SCHEMA["gc_real_game_sub_state"].writer == "gamecontroller"
    defaults = default_blackboard_values()
    assert defaults["local_freekick_phase"] == "NONE" and defaults["local_freekick_use_custom"] is False
    assert defaults["local_freekick_target_valid"] is False
