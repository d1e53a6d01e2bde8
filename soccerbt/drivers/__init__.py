"""Robot I/O: the Driver protocol, SimDriver (the embedded simulator) and the gamepad adapter.

May import soccerbt.world and soccerbt.blackboard.
"""
