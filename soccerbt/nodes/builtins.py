"""The node types BehaviorTree.CPP 4.10's BehaviorTreeFactory registers by default.

`BUILTIN_NODES` maps each registration ID to its class, in bt_factory.cpp's order.
"""
from __future__ import annotations

from soccerbt.nodes import actions as a
from soccerbt.nodes import controls as c
from soccerbt.nodes import decorators as d

__all__ = ["BUILTIN_NODES"]

BUILTIN_NODES: dict[str, type] = {
    "Fallback": c.FallbackNode,
    "AsyncFallback": c.AsyncFallbackNode,
    "Sequence": c.SequenceNode,
    "AsyncSequence": c.AsyncSequenceNode,
    "SequenceWithMemory": c.SequenceWithMemoryNode,
    "Parallel": c.ParallelNode,
    "ParallelAll": c.ParallelAllNode,
    "ReactiveSequence": c.ReactiveSequenceNode,
    "ReactiveFallback": c.ReactiveFallbackNode,
    "IfThenElse": c.IfThenElseNode,
    "WhileDoElse": c.WhileDoElseNode,
    "TryCatch": c.TryCatchNode,
    "Inverter": d.InverterNode,
    "RetryUntilSuccessful": d.RetryNode,
    "KeepRunningUntilFailure": d.KeepRunningUntilFailureNode,
    "Repeat": d.RepeatNode,
    "Timeout": d.TimeoutNode,
    "Delay": d.DelayNode,
    "RunOnce": d.RunOnceNode,
    "ForceSuccess": d.ForceSuccessNode,
    "ForceFailure": d.ForceFailureNode,
    "AlwaysSuccess": a.AlwaysSuccessNode,
    "AlwaysFailure": a.AlwaysFailureNode,
    "Script": a.ScriptNode,
    "ScriptCondition": a.ScriptConditionNode,
    "SetBlackboard": a.SetBlackboardNode,
    "Sleep": a.SleepNode,
    "UnsetBlackboard": a.UnsetBlackboardNode,
    "SubTree": d.SubTreeNode,
    "Precondition": d.PreconditionNode,
    "Switch2": c.switch_node_type(2),
    "Switch3": c.switch_node_type(3),
    "Switch4": c.switch_node_type(4),
    "Switch5": c.switch_node_type(5),
    "Switch6": c.switch_node_type(6),
    "LoopInt": d.loop_node_type(int, "LoopInt"),
    "LoopBool": d.loop_node_type(bool, "LoopBool"),
    "LoopDouble": d.loop_node_type(float, "LoopDouble"),
    "LoopString": d.loop_node_type(str, "LoopString"),
    "WasEntryUpdated": a.WasEntryUpdatedNode,
    "SkipUnlessUpdated": d.SkipUnlessUpdatedNode,
    "WaitValueUpdate": d.WaitValueUpdateNode,
}
