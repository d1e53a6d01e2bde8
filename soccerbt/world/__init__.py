"""The simulated world: field geometry, world types, the simulator (truth and time), sensors.

Imports nothing else of soccerbt. Truth lives here; robots see only what the sensors report.
"""
