"""A Booster robot (T1, K1) through its own interfaces: robocup_demo's ROS 2 topics and the SDK's
DDS topics, for a real robot or a simulator that serves them.

What lives here:

* ``messages``: the messages as plain dataclasses with their exact CDR bytes (pure Python);
* ``topics``: the topic table (names with a robot-name suffix as robocup_demo makes them, the
  ROS 2 -> DDS name mapping, the QoS kinds);
* ``transport``: the small ``Transport`` interface (publishers and subscriptions of messages),
  the in-process ``MemoryTransport`` and ``open_transport`` (in ``connect``);
* ``cyclone``: ``CycloneTransport``, DDS through Cyclone DDS (imported only when opened);
* ``fastdds_relay``: the discovery relay that lets the vendor SDK's FastDDS 2.13 find Cyclone;
* the driver itself and its conversions (``driver``, ``convert``, ``loco``, ``remote``).

May import ``soccerbt.world`` and, for the robot's own remote controller, the gamepad adapter of
``soccerbt.drivers``. Importing this package, ``messages``, ``topics``, ``transport`` or
``fastdds_relay`` imports neither cyclonedds nor anything of ROS.
"""
