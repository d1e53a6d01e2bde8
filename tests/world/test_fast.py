"""The fast constructors build the same objects as the dataclass constructors."""
from __future__ import annotations

import dataclasses

from soccerbt.world import Detection, Observations, Pose2D, Team
from soccerbt.world._fast import (
    DETECTION_FIELDS,
    OBSERVATION_FIELDS,
    POSE_FIELDS,
    make_detection,
    make_observations,
    make_pose,
)


def test_field_lists_match_the_types():
    assert tuple(f.name for f in dataclasses.fields(Observations)) == OBSERVATION_FIELDS
    assert tuple(f.name for f in dataclasses.fields(Detection)) == DETECTION_FIELDS
    assert tuple(f.name for f in dataclasses.fields(Pose2D)) == POSE_FIELDS


def test_fast_objects_equal_constructed_ones():
    det = make_detection("ball", 1.0, -2.0, 0.5, Team.RED)
    assert det == Detection("ball", 1.0, -2.0, 0.5, Team.RED) and hash(det) == hash(Detection("ball", 1.0, -2.0, 0.5, Team.RED))
    pose = make_pose(1.0, 2.0, 0.5)
    assert pose == Pose2D(1.0, 2.0, 0.5) and pose.compose(Pose2D(1.0, 0.0, 0.0)) == Pose2D(1.0, 2.0, 0.5).compose(Pose2D(1.0, 0.0, 0.0))
    obs = make_observations(1.5, True, (det,), pose, 0.25, False, 0.1, 0.4)
    assert obs == Observations(1.5, True, (det,), pose, 0.25, False, 0.1, 0.4)
    assert dataclasses.replace(obs, fallen=True).fallen
    try:
        obs.t_s = 3.0  # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise AssertionError("fast observations must stay frozen")
