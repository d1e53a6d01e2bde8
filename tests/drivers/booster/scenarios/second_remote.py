"""Two DDS participants publish the robot's remote controller state (the robot's own, and a
laptop on the field's network): the brain's driver takes the first one only; the second one's BACK,
START and stick do nothing; the first one's START releases the stop it engaged; when the first
one's participant has gone and been silent for the stated time, the second is heard. Prints one JSON object."""
from __future__ import annotations

import time

from _common import emit, wait_for

from soccerbt.drivers.booster import messages as m
from soccerbt.drivers.booster.cyclone import CycloneTransport
from soccerbt.drivers.booster.driver import BoosterDriver
from soccerbt.drivers.booster.remote import RemotePad
from soccerbt.drivers.gamepad import EmergencyStop
from soccerbt.world.types import RobotId, Team

TOPIC = "/remote_controller_state/blue1"


def main() -> None:
    brain_side = CycloneTransport(domain=0, interface="lo")
    robot_side = CycloneTransport(domain=0, interface="lo")
    intruder_side = CycloneTransport(domain=0, interface="lo")
    driver = BoosterDriver(brain_side, RobotId(Team.BLUE, 1), name="blue1")
    estop = EmergencyStop()
    pad = RemotePad(driver.remote, estop=estop, robot="blue1")
    bb: dict[str, object] = {"control_state": 3, "player_role": "striker"}
    robot = robot_side.publisher(TOPIC, m.RemoteControllerState, "sensor")
    intruder = intruder_side.publisher(TOPIC, m.RemoteControllerState, "sensor")
    wait_for(lambda: robot.matched() >= 1 and intruder.matched() >= 1, 10)
    t = [0.0]

    def press(publisher: object, **buttons: object) -> None:
        publisher.publish(m.RemoteControllerState(**buttons))  # type: ignore[attr-defined]
        deadline = time.monotonic() + 2.0
        before = driver.counters.remote + driver.counters.remote_refused
        while time.monotonic() < deadline:
            t[0] = round(t[0] + 0.01, 2)
            driver.poll(t[0])
            pad.update(t[0], bb)
            if driver.counters.remote + driver.counters.remote_refused > before:
                return
            time.sleep(0.005)

    out: dict[str, object] = {}
    press(robot)
    press(intruder, back=True)
    out["engaged_by_intruder"] = estop.engaged
    press(robot, back=True)
    out["engaged_by_robot"] = estop.engaged
    press(intruder, start=True)
    out["released_by_intruder"] = not estop.engaged
    press(intruder, ly=-1.0)
    out["intruder_drives"] = bb.get("go_manual") is True
    out["refused"] = driver.counters.remote_refused
    press(robot, start=True)
    out["released_by_robot"] = not estop.engaged
    robot_side.close()  # the robot's remote service goes (the topic's instance stays alive: the
    # intruder still writes it), so the lock moves only after the stated silence
    press(intruder, back=True)
    out["second_heard_at_once"] = estop.engaged
    t[0] += driver.remote_lock.silence_s
    press(intruder, back=True)
    out["second_heard_after_silence"] = estop.engaged
    out["lock_moves"] = driver.remote_lock.moves
    emit(out)
    for side in (intruder_side, brain_side):
        side.close()


if __name__ == "__main__":
    main()
