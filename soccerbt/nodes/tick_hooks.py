"""BT.CPP 4.10's injected pre- and post-tick callbacks (TreeNode::setPreTickFunction and
setPostTickFunction), for the nodes a monitor hooks.

`set_pre_tick(node, callback)` and `set_post_tick(node, callback)` give one node the callbacks
BT.CPP's executeTick runs around tick(); None removes one. While a node has either, its
`execute_tick` is an instance attribute (a closure made here) that runs BT.CPP's executeTick
with the callbacks in place; when both are gone it is removed again and the class's own method
runs. The class's `execute_tick` is never touched, so a tree without hooks (every tree nobody
monitors) runs exactly the code it ran before.

As in BT.CPP 4.10's executeTick:
- the pre-conditions (`_failureIf`, `_successIf`, `_skipIf`, `_while`) come first; when they
  decide the result, the pre-tick callback is not called;
- else the pre-tick callback is called unless the node's status is SUCCESS or FAILURE; a
  SUCCESS or FAILURE it returns is the result and tick() does not run (anything else: tick()
  runs);
- the post-conditions run on a SUCCESS or FAILURE result; then the post-tick callback gets the
  result, and a SUCCESS or FAILURE it returns replaces it;
- the result is stored unless it is SKIPPED (the node stays IDLE), and returned.

A callback may block (a monitor's breakpoint): the tick waits in it. Knows nothing of Groot.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from soccerbt.nodes.status import FAILURE, IDLE, RUNNING, SKIPPED, SUCCESS, NodeStatus
from soccerbt.nodes.tree_node import LogicError, NodeTickError, TreeNode

__all__ = ["PreTick", "PostTick", "set_pre_tick", "set_post_tick", "tick_hooks", "clear_tick_hooks"]

PreTick = Callable[[TreeNode], NodeStatus | None]  # None (or IDLE, SKIPPED...): no override
PostTick = Callable[[TreeNode, NodeStatus], NodeStatus | None]

_HOOKS = "_tick_hooks"  # the instance attribute holding [pre, post] while a node has any


def tick_hooks(node: TreeNode) -> tuple[PreTick | None, PostTick | None]:
    """The node's (pre, post) tick callbacks; (None, None) when it has none."""
    hooks = node.__dict__.get(_HOOKS)
    return (None, None) if hooks is None else (hooks[0], hooks[1])


def set_pre_tick(node: TreeNode, callback: PreTick | None) -> None:
    """Give `node` BT.CPP's pre-tick callback (None removes it)."""
    _set(node, 0, callback)


def set_post_tick(node: TreeNode, callback: PostTick | None) -> None:
    """Give `node` BT.CPP's post-tick callback (None removes it)."""
    _set(node, 1, callback)


def clear_tick_hooks(node: TreeNode) -> None:
    """Remove both callbacks: the node runs its class's execute_tick again."""
    node.__dict__.pop(_HOOKS, None)
    node.__dict__.pop("execute_tick", None)


def _set(node: TreeNode, index: int, callback: Any) -> None:
    d = node.__dict__
    hooks = d.get(_HOOKS)
    if hooks is None:
        if callback is None:
            return
        hooks = [None, None]
        d[_HOOKS] = hooks
        # an instance attribute shadows the class's method for this node only (a function is a
        # non-data descriptor); every parent calls child.execute_tick()
        d["execute_tick"] = _hooked_execute_tick(node, hooks)
    hooks[index] = callback
    if hooks[0] is None and hooks[1] is None:
        clear_tick_hooks(node)


def _hooked_execute_tick(node: Any, hooks: list[Any]) -> Callable[[], NodeStatus]:
    """BT.CPP 4.10's executeTick with the injected callbacks (see the module docstring); the
    rest (SKIPPED reported to the skip sink, SyncActionNode's RUNNING check, a decorator's
    child reset, `last_status`, `env.ticked`) as TreeNode.execute_tick does it."""

    def execute_tick() -> NodeStatus:
        pre_tick, post_tick = hooks[0], hooks[1]  # copied once, as BT.CPP copies them
        st: Any = None
        try:
            pre = node._pre
            if pre is not None:
                # the lone `_while` form is the pair (3, evaluator) of the general one
                st = node._check_pre(pre if pre.__class__ is tuple else ((3, pre),))
            if st is None:
                status = node._bt_status
                if pre_tick is not None and status is not SUCCESS and status is not FAILURE:
                    override = pre_tick(node)
                    if override is SUCCESS or override is FAILURE:
                        st = override
                if st is None:
                    st = node.bt_tick()
                    if st is not SUCCESS and st is not FAILURE and st is not RUNNING and st is not SKIPPED:
                        st = node._bad_status(st)  # a py_trees status converted; IDLE and junk raise
            if st is SUCCESS or st is FAILURE:
                post = node._post
                if post is not None:
                    node._run_post(post, st)
            if post_tick is not None:
                override = post_tick(node, st)
                if override is SUCCESS or override is FAILURE:
                    st = override
            if st is SKIPPED:  # stays IDLE, as in BT.CPP; reported to the skip sink
                if (skipped := node.env.skip_sink) is not None:
                    skipped.append(node.uid)
            else:
                node._bt_status = st
                if st is RUNNING and node._never_running:
                    raise LogicError("SyncActionNode MUST never return RUNNING")
            if node._resets_child:
                child = node.child
                cs = child._bt_status
                if cs is SUCCESS or cs is FAILURE:
                    child._bt_status = IDLE
        except NodeTickError:
            raise
        except Exception as exc:
            raise NodeTickError(node, exc) from exc
        node.last_status = st
        node.env.ticked.append(node)
        return st

    return execute_tick
