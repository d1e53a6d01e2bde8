"""BT.CPP node statuses (with SKIPPED) and their mapping to py_trees' Status.

py_trees has no SKIPPED and calls IDLE "INVALID"; the engine carries BT.CPP's five statuses in
`NodeStatus` and mirrors them onto py_trees' `Status` for display (SKIPPED shows as INVALID,
which is what BT.CPP keeps too: a skipped node stays IDLE).
"""
from __future__ import annotations

from enum import Enum

from py_trees.common import Status as PTStatus

__all__ = ["NodeStatus", "IDLE", "RUNNING", "SUCCESS", "FAILURE", "SKIPPED", "to_node_status",
           "to_py_trees", "is_completed"]


class NodeStatus(Enum):
    """BT.CPP NodeStatus: IDLE, RUNNING, SUCCESS, FAILURE, SKIPPED."""

    IDLE = "IDLE"
    RUNNING = "RUNNING"
    SUCCESS = "SUCCESS"
    FAILURE = "FAILURE"
    SKIPPED = "SKIPPED"

    _code: int  # BT.CPP's numeric code as a plain attribute (set below); not a member

    def __str__(self) -> str:
        return self.value

    @property
    def code(self) -> int:
        """BT.CPP's numeric code (IDLE 0, RUNNING 1, SUCCESS 2, FAILURE 3, SKIPPED 4)."""
        return _CODES[self.value]


_CODES = {"IDLE": 0, "RUNNING": 1, "SUCCESS": 2, "FAILURE": 3, "SKIPPED": 4}
for _member in NodeStatus:
    # a plain attribute too: read per status change by a watched tree, where a property costs a call
    _member._code = _CODES[_member.value]

IDLE = NodeStatus.IDLE
RUNNING = NodeStatus.RUNNING
SUCCESS = NodeStatus.SUCCESS
FAILURE = NodeStatus.FAILURE
SKIPPED = NodeStatus.SKIPPED

_TO_PT = {
    IDLE: PTStatus.INVALID,
    RUNNING: PTStatus.RUNNING,
    SUCCESS: PTStatus.SUCCESS,
    FAILURE: PTStatus.FAILURE,
    SKIPPED: PTStatus.INVALID,
}
# py_trees statuses and our own map to NodeStatus (a user's update() may return either)
_FROM_ANY: dict[object, NodeStatus] = {
    PTStatus.INVALID: IDLE,
    PTStatus.RUNNING: RUNNING,
    PTStatus.SUCCESS: SUCCESS,
    PTStatus.FAILURE: FAILURE,
}
for _s in NodeStatus:
    _FROM_ANY[_s] = _s


def to_node_status(status: object) -> NodeStatus:
    """NodeStatus for a py_trees Status or a NodeStatus; ValueError for anything else."""
    try:
        return _FROM_ANY[status]
    except (KeyError, TypeError):
        raise ValueError(f"not a node status: {status!r}") from None


def to_py_trees(status: NodeStatus) -> PTStatus:
    """The py_trees Status shown for a NodeStatus (IDLE and SKIPPED show as INVALID)."""
    return _TO_PT[status]


def is_completed(status: NodeStatus) -> bool:
    """BT.CPP isStatusCompleted: SUCCESS or FAILURE."""
    return status is SUCCESS or status is FAILURE
