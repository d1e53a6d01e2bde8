"""The Booster robot's topics: names, message types, QoS kinds, and their DDS names.

Names follow robocup_demo (``brain.cpp``, ``robot_client.cpp``) and the vendor SDK. A robot name
adds a suffix so that several robots share one graph in simulation; with no name ("") the plain
names are those a real robot uses:

* ``/odometer_state`` -> ``/odometer_state/blue1`` (``base + "/" + name``); likewise the vision
  topics, ``/low_state``, ``/head_pose``, ``/fall_down``, ``/remote_controller_state`` and the
  relative ``fall_down_recovery_state`` -> ``fall_down_recovery_state/blue1``;
* ``LocoApiTopicReq`` -> ``LocoApiTopic/blue1Req`` (``"LocoApiTopic" + "/" + name + "Req"``),
  ``LocoApiTopicResp`` -> ``LocoApiTopic/blue1Resp``;
* ``/clock`` has no suffix (one simulated time for everyone).

ROS 2 maps a topic to DDS by prefixing ``rt``: ``/odometer_state`` -> ``rt/odometer_state``; a
relative name is resolved in the root namespace first, so ``LocoApiTopicReq`` ->
``rt/LocoApiTopicReq``. Type names map ``pkg/msg/T`` -> ``pkg::msg::dds_::T_`` (each message
class carries both as ``ROS_TYPE`` and ``DDS_TYPE``).

QoS kinds (``QOS``), each with the profile of a writer and of a reader (a subscription's
``depth`` replaces the reader's keep-last depth):

========== ================================================ ============================================
kind       writer                                           reader
========== ================================================ ============================================
sensor     reliable, volatile, keep last 1                  best effort, volatile, keep last ``depth``
command    reliable, transient local, keep last 1 (the SDK) reliable, volatile, keep last ``depth``
response   reliable, volatile, keep last 16                 reliable, volatile, keep last ``depth``
clock      reliable, volatile, keep last 1                  best effort, volatile, keep last ``depth``
reliable   reliable, volatile, keep last 10                 reliable, volatile, keep last ``depth``
========== ================================================ ============================================

Why: the SDK's sensor readers are best effort (keep last 1), robocup_demo's are reliable (its
``SUB_STATE_QUEUE_SIZE`` 1 with rclcpp's default QoS); a reliable writer serves both, a best
effort reader takes from any writer. The SDK's loco request writer is reliable and transient
local; robocup_demo's is reliable and volatile: a reliable volatile reader hears both (and gets
no stale request from before it joined). ROS publishes ``/clock`` best effort (``ClockQoS``); our
reliable writer also serves a reliable reader such as ``ros2 topic echo``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from soccerbt.drivers.booster import messages as m

__all__ = ["QOS", "TOPICS", "QosKind", "QosProfile", "TopicSpec", "dds_topic_name", "robot_topic",
           "ros_topic_name", "topic"]


@dataclass(frozen=True)
class QosProfile:
    reliable: bool
    transient_local: bool
    depth: int  # keep last


@dataclass(frozen=True)
class QosKind:
    name: str
    writer: QosProfile
    reader: QosProfile

    def reader_with_depth(self, depth: int) -> QosProfile:
        if depth < 1:
            raise ValueError(f"keep-last depth must be at least 1, got {depth}")
        return QosProfile(self.reader.reliable, self.reader.transient_local, depth)


QOS: dict[str, QosKind] = {
    k.name: k for k in (
        QosKind("sensor", QosProfile(True, False, 1), QosProfile(False, False, 1)),
        QosKind("command", QosProfile(True, True, 1), QosProfile(True, False, 1)),
        QosKind("response", QosProfile(True, False, 16), QosProfile(True, False, 1)),
        QosKind("clock", QosProfile(True, False, 1), QosProfile(False, False, 1)),
        QosKind("reliable", QosProfile(True, False, 10), QosProfile(True, False, 10)),
    )
}
"""The QoS kinds by name (see the module docstring)."""


def qos_kind(name: str) -> QosKind:
    """The QoS kind called ``name``; ValueError naming the known ones otherwise."""
    try:
        return QOS[name]
    except KeyError:
        raise ValueError(f"unknown QoS kind {name!r} (known: {', '.join(QOS)})") from None


_NAME = re.compile(r"[A-Za-z_~{}][A-Za-z0-9_/~{}]*")
_ROBOT_NAME = re.compile(r"[A-Za-z0-9_]*")


def _check_ros_name(name: str) -> None:
    bare = name[1:] if name.startswith("/") else name
    if not bare or not _NAME.fullmatch(bare) or "//" in bare or bare.endswith("/"):
        raise ValueError(f"not a valid ROS 2 topic name: {name!r}")


def robot_topic(base: str, name: str = "") -> str:
    """robocup_demo's name of topic ``base`` for the robot called ``name`` ("": the plain name).

    ``robot_topic("/odometer_state", "blue1")`` -> ``/odometer_state/blue1``;
    ``robot_topic("LocoApiTopicReq", "blue1")`` -> ``LocoApiTopic/blue1Req``.
    """
    if not _ROBOT_NAME.fullmatch(name):
        raise ValueError(f"a robot name may hold letters, digits and '_' only, got {name!r}")
    if not name:
        return base
    if base.startswith("LocoApiTopic"):
        return f"LocoApiTopic/{name}{base[len('LocoApiTopic'):]}"
    return f"{base}/{name}"


def dds_topic_name(ros_name: str) -> str:
    """The DDS topic of a ROS 2 topic: ``/x/y`` and ``x/y`` -> ``rt/x/y``."""
    _check_ros_name(ros_name)
    return "rt" + (ros_name if ros_name.startswith("/") else "/" + ros_name)


def ros_topic_name(dds_name: str) -> str | None:
    """The ROS 2 topic of a DDS topic (``rt/x/y`` -> ``/x/y``); None if it is not a ROS topic."""
    if not dds_name.startswith("rt/"):
        return None
    return dds_name[2:]


@dataclass(frozen=True)
class TopicSpec:
    """One topic of the robot (``direction`` as the brain sees it: "in" or "out")."""

    key: str
    base: str  # the plain ROS name (no robot suffix)
    message_type: type
    qos: str
    direction: str
    suffixed: bool = True  # False: the same name for every robot (/clock)

    def name(self, robot: str = "") -> str:
        """The ROS name for robot ``robot`` ("": a real robot's plain name)."""
        return robot_topic(self.base, robot) if self.suffixed else self.base

    def dds_name(self, robot: str = "") -> str:
        return dds_topic_name(self.name(robot))


TOPICS: dict[str, TopicSpec] = {
    t.key: t for t in (
        TopicSpec("detections", "/booster_soccer/detection", m.Detections, "sensor", "in"),
        TopicSpec("line_segments", "/booster_soccer/line_segments", m.LineSegments, "sensor", "in"),
        TopicSpec("odometer", "/odometer_state", m.Odometer, "sensor", "in"),
        TopicSpec("low_state", "/low_state", m.LowState, "sensor", "in"),
        TopicSpec("head_pose", "/head_pose", m.Pose, "sensor", "in"),
        TopicSpec("fall_down", "/fall_down", m.FallDownState, "sensor", "in"),  # the SDK's
        TopicSpec("recovery_state", "fall_down_recovery_state", m.RawBytesMsg, "sensor", "in"),  # robocup_demo's
        TopicSpec("remote_controller", "/remote_controller_state", m.RemoteControllerState, "sensor", "in"),
        TopicSpec("loco_request", "LocoApiTopicReq", m.RpcReqMsg, "command", "out"),
        TopicSpec("loco_response", "LocoApiTopicResp", m.RpcRespMsg, "response", "in"),
        TopicSpec("clock", "/clock", m.Clock, "clock", "in", suffixed=False),
    )
}
"""The robot's topics by key."""


def topic(key: str) -> TopicSpec:
    """The topic called ``key`` in ``TOPICS``; ValueError naming the known ones otherwise."""
    try:
        return TOPICS[key]
    except KeyError:
        raise ValueError(f"unknown topic {key!r} (known: {', '.join(TOPICS)})") from None
