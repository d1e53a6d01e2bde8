"""Booster-compatible soccer nodes: thin nodes that read ports and the blackboard and call
services through the robot context."""
