"""Localization, navigation, kick and planning services, and the robot's world model.

Pure Python on numpy, scipy and shapely behind small Protocols; may import soccerbt.world
and soccerbt.blackboard, never trees or nodes. Import the modules themselves (nothing is
imported here, so importing the package stays cheap):

- ``localization``: ``Localizer`` Protocol, ``ParticleFilter``, ``RelocalizeMode``;
- ``navigation``: ``Obstacle``, ``VisibilityGraphPlanner`` (``PathPlanner``), ``PathFollower``,
  ``Navigator`` (from ``obstacles``, ``path_planner`` with its ``visibility_graph``,
  ``path_follower`` and its own);
- ``kick``: ``KickPlanner`` (shoot / cross / block), ``approach_pose``, ``is_kickable``;
- ``planning``: ``TeamMessage``, ``RoleAssigner``, ``assign_positions``, set-piece positions,
  ``TeamLink``;
- ``world_model``: ``WorldModel`` (ball memory, obstacles, teammates).
"""
