"""The fast constructors build the same objects as the dataclass constructors."""
from __future__ import annotations

import dataclasses
import pickle

import pytest

from soccerbt.world import Detection, Observations, Pose2D, Team
from soccerbt.world._fast import (
    DETECTION_FIELDS,
    OBSERVATION_FIELDS,
    POSE_FIELDS,
    DetectionTwin,
    ObservationsTwin,
    PoseTwin,
    make_detection,
    make_observations,
    make_pose,
)


def test_field_lists_match_the_types():
    assert tuple(f.name for f in dataclasses.fields(Observations)) == OBSERVATION_FIELDS
    assert tuple(f.name for f in dataclasses.fields(Detection)) == DETECTION_FIELDS
    assert tuple(f.name for f in dataclasses.fields(Pose2D)) == POSE_FIELDS
    for twin, frozen in ((ObservationsTwin, Observations), (DetectionTwin, Detection), (PoseTwin, Pose2D)):
        assert twin.__slots__ == frozen.__slots__


def test_fast_objects_equal_constructed_ones():
    det = make_detection("ball", 1.0, -2.0, 0.5, Team.RED)
    assert det == Detection("ball", 1.0, -2.0, 0.5, Team.RED) and hash(det) == hash(
        Detection("ball", 1.0, -2.0, 0.5, Team.RED)
    )
    pose = make_pose(1.0, 2.0, 0.5)
    assert pose == Pose2D(1.0, 2.0, 0.5) and pose.compose(Pose2D(1.0, 0.0, 0.0)) == Pose2D(1.0, 2.0, 0.5).compose(
        Pose2D(1.0, 0.0, 0.0)
    )
    obs = make_observations(1.5, True, (det,), pose, 0.25, False, 0.1, 0.4)
    assert obs == Observations(1.5, True, (det,), pose, 0.25, False, 0.1, 0.4)
    assert dataclasses.replace(obs, fallen=True).fallen
    try:
        obs.t_s = 3.0  # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise AssertionError("fast observations must stay frozen")


@pytest.mark.parametrize("made, constructed", [
    (make_detection("L", 0.5, 0.25, 0.75, None), Detection("L", 0.5, 0.25, 0.75, None)),
    (make_pose(-1.0, 0.5, 3.0), Pose2D(-1.0, 0.5, 3.0)),
    (make_observations(0.01, False, (), Pose2D(0.0, 0.0, 0.0), 0.0, True, 0.0, 0.0),
     Observations(0.01, False, (), Pose2D(0.0, 0.0, 0.0), 0.0, True, 0.0, 0.0)),
])
def test_twins_become_the_frozen_type_itself(made, constructed):
    assert type(made) is type(constructed)
    assert repr(made) == repr(constructed) and made == constructed and constructed == made
    assert pickle.loads(pickle.dumps(made)) == constructed
    assert dataclasses.asdict(made) == dataclasses.asdict(constructed)
    name = dataclasses.fields(made)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, name, 1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(made, name)
