"""The RoboCup GameController: packet codec, UDP receiver and return sender, blackboard
adapter, and the referee that plays the GameController's part in simulated matches.

May import soccerbt.world and soccerbt.blackboard.
"""
