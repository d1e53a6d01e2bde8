"""The node library: base classes and typed ports, the BT.CPP built-ins, and (in soccer/)
the Booster-compatible soccer nodes.

Outside soccer/ this knows nothing of soccer. May import blackboard, services, drivers.
"""
