"""Field geometry: dimensions from the HL laws, landmarks, helpers."""
from __future__ import annotations

import pytest

from soccerbt.world import FeatureKind, Field


def count(field: Field, kind: FeatureKind) -> int:
    return len(field.features_of(kind))


@pytest.mark.parametrize("field", [Field.adult_size(), Field.kid_size(), Field.large()], ids=lambda f: f.name)
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
    assert (f.length_m, f.width_m, f.ball_radius_m, f.players_per_team, f.crossbar_height_m) == (
        9.0,
        6.0,
        0.075,
        4,
        1.3,
    )
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


def test_large_field_numbers_from_the_hsl_rules():
    """hsl-rules.md, L: 22 x 14, goal 2.6 / 1.9 / 1.0, goal area 1 x 5, penalty area 3.5 x 7,
    penalty mark 2.5, centre circle 4 (= keep-away diameter), border 1, corner arcs 1, lines 0.12."""
    f = Field.large()
    assert (f.length_m, f.width_m) == (22.0, 14.0)
    assert (f.goal_width_m, f.crossbar_height_m, f.goal_depth_m) == (2.6, 1.9, 1.0)
    assert (f.goal_area_length_m, f.goal_area_width_m) == (1.0, 5.0)
    assert (f.penalty_area_length_m, f.penalty_area_width_m) == (3.5, 7.0)
    assert (f.penalty_mark_distance_m, f.centre_circle_diameter_m, f.border_strip_m) == (2.5, 4.0, 1.0)
    assert (f.corner_arc_radius_m, f.line_width_m, f.ball_diameter_m) == (1.0, 0.12, 0.22)
    assert f.free_kick_distance_m == f.centre_circle_radius_m == 2.0
    assert (f.players_per_team, f.max_players_per_team) == (5, 5)
    # the features the camera sees
    assert sorted(f.goal_posts) == [(-11.0, -1.3), (-11.0, 1.3), (11.0, -1.3), (11.0, 1.3)]
    assert sorted(p.x_m for p in f.features_of(FeatureKind.PENALTY_MARK)) == [-8.5, 8.5]
    assert {(p.x_m, p.y_m) for p in f.features_of(FeatureKind.X_CROSS)} == {(0.0, 2.0), (0.0, -2.0)}
    ls = {(p.x_m, p.y_m) for p in f.features_of(FeatureKind.L_CROSS)}
    assert {(-11.0, 7.0), (11.0, -7.0), (-10.0, 2.5), (10.0, -2.5), (-7.5, 3.5), (7.5, -3.5)} <= ls
    ts = {(p.x_m, p.y_m) for p in f.features_of(FeatureKind.T_CROSS)}
    assert {(-11.0, 2.5), (-11.0, -3.5), (11.0, 3.5), (0.0, 7.0), (0.0, -7.0)} <= ts
    assert f.is_inside_penalty_area(-7.6, 3.4) and not f.is_inside_penalty_area(-7.4, 0.0)
    assert f.distance_to_nearest_line(-0.5, 0.0) == pytest.approx(0.5)  # the halfway line
    assert f.distance_to_nearest_line(-3.0, 0.0) == pytest.approx(1.0)  # the circle at r = 2


def test_small_field_numbers_from_the_hsl_rules():
    f = Field.kid_size()
    assert (f.goal_width_m, f.goal_depth_m) == (1.8, 0.5)
    assert (f.goal_area_length_m, f.goal_area_width_m, f.penalty_area_length_m, f.penalty_area_width_m) == (
        1.0, 3.0, 2.0, 4.0)
    assert (f.penalty_mark_distance_m, f.centre_circle_diameter_m, f.free_kick_distance_m) == (1.5, 1.5, 0.75)
    assert (f.players_per_team, f.max_players_per_team, f.corner_arc_radius_m) == (4, 7, 0.0)


@pytest.mark.parametrize("name, expected", [("S", "KidSize"), ("s", "KidSize"), ("kid", "KidSize"),
                                            ("M", "AdultSize"), ("adult", "AdultSize"), ("AdultSize", "AdultSize"),
                                            ("L", "L"), ("l", "L"), ("Large", "L")])
def test_hsl_field_names_select_the_fields(name, expected):
    assert Field.by_name(name).name == expected
    assert Field.by_name(name) == {"KidSize": Field.kid_size(), "AdultSize": Field.adult_size(),
                                   "L": Field.large()}[expected]
