"""Field geometry: dimensions from the HL laws, landmarks, helpers."""
from __future__ import annotations

import pytest

from soccerbt.world import FeatureKind, Field


def count(field: Field, kind: FeatureKind) -> int:
    return len(field.features_of(kind))


@pytest.mark.parametrize("field", [Field.adult_size(), Field.kid_size()], ids=lambda f: f.name)
def test_landmarks_are_complete_and_point_symmetric(field):
    assert count(field, FeatureKind.GOAL_POST) == 4
    assert count(field, FeatureKind.L_CROSS) == 12  # 4 corners, 8 goal/penalty area corners
    assert count(field, FeatureKind.T_CROSS) == 10  # 8 on the goal lines, 2 on the halfway line
    assert count(field, FeatureKind.X_CROSS) == 2
    assert count(field, FeatureKind.PENALTY_MARK) == 2
    assert count(field, FeatureKind.CENTRE_CIRCLE) == 1
    points = {(f.kind, round(f.x_m, 9), round(f.y_m, 9)) for f in field.features}
    assert len(points) == len(field.features)
    assert {(k, -x + 0.0, -y + 0.0) for k, x, y in points} == points


def test_adult_size_numbers():
    f = Field.adult_size()
    assert (f.length_m, f.width_m, f.ball_radius_m, f.players_per_team) == (14.0, 9.0, 0.11, 3)
    marks = sorted(p.x_m for p in f.features_of(FeatureKind.PENALTY_MARK))
    assert marks == [-4.9, 4.9]
    assert f.goal_posts[0] == (-7.0, 1.3)
    assert {(p.x_m, p.y_m) for p in f.features_of(FeatureKind.X_CROSS)} == {(0.0, 1.5), (0.0, -1.5)}
    assert len(f.lines) == 5 + 2 * 2 * 3


def test_kid_size_numbers():
    f = Field.kid_size()
    assert (f.length_m, f.width_m, f.ball_radius_m, f.players_per_team, f.crossbar_height_m) == (9.0, 6.0, 0.075, 4, 1.2)
    assert Field.by_name("kid") == f and Field.by_name("AdultSize") == Field.adult_size()
    with pytest.raises(ValueError, match="unknown field size"):
        Field.by_name("mid")


def test_helpers():
    f = Field.adult_size()
    assert f.is_inside_field(7.0, 4.5) and not f.is_inside_field(7.01, 0.0)
    assert f.is_inside_own_half(-1.0, 2.0) and not f.is_inside_own_half(1.0, 2.0)
    assert f.is_inside_penalty_area(-5.0, 2.9) and not f.is_inside_penalty_area(-3.9, 0.0)
    assert f.is_inside_penalty_area(5.0, 0.0, own=False)
    assert f.distance_to_nearest_line(0.0, 0.0) == pytest.approx(0.0)  # the halfway line
    assert f.distance_to_nearest_line(-1.0, 0.0) == pytest.approx(0.5)  # the circle at r = 1.5
    assert f.clamp_to_field(9.0, -6.0, margin_m=0.5) == (6.5, -4.0)
