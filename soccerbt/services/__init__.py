"""Localization, navigation, kick and planning services, and the robot's world model.

Pure Python on numpy, scipy and shapely behind small Protocols; may import soccerbt.world
and soccerbt.blackboard, never trees or nodes.
"""
