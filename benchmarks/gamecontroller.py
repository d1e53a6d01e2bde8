"""GameController costs: packets decoded per second, and the adapter's cost per packet.

Decoding: a stream of HL v12 packets (every packet different in its header, team blocks that
change now and then, as in a real game) through ``decode``, against a baseline measured in the
same run: one bare ``struct.unpack`` of all 175 fields (the least any decoder must do); also
the cold case, where every team block is new; the same for HSL control messages v19 (198 bytes)
and v20 (158 bytes) through the same ``decode`` (baseline: a bare unpack of their layout). Adapter: ``apply`` of a new
packet where only the clock moved (the usual 2 Hz traffic), of the game stream, of the same packet object again (what
a 100 Hz brain sees between packets), and of packets whose every entry changes, against a
baseline of writing the 17 gc_* values by hand; on a plain dict and on soccerbt's Blackboard.
Times are CPU time of this process (medians), so neighbours on a shared machine matter less.

    python benchmarks/gamecontroller.py [--repeat 7] [--number 20000]
"""
from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
import timeit

from soccerbt.gamecontroller import hsl_protocol, protocol
from soccerbt.gamecontroller.adapter import DEFAULTS, GameControllerAdapter
from soccerbt.gamecontroller.protocol import (
    GameControlData,
    Penalty,
    RobotInfo,
    SecondaryState,
    TeamInfo,
    decode,
    encode,
)


def median_s(fn, repeat: int, number: int) -> float:
    """Median seconds per call, in this process's CPU time (the machine is shared: wall time
    would measure the neighbours)."""
    return statistics.median(timeit.repeat(fn, repeat=repeat, number=number, timer=time.process_time)) / number


def game_stream(n: int) -> list[bytes]:
    """n packets of a plausible game: clock ticking, penalties and scores changing sometimes."""
    out = []
    for k in range(n):
        pen = k // 40 % 2
        ours = TeamInfo(5, 0, score=k // 300, players=tuple(
            RobotInfo(Penalty.PICKUP_OR_INCAPABLE if (pen and j == 1) else 0, 10 - k % 10 if (pen and j == 1) else 0,
                      goal_keeper=int(j == 0)) if j < 4 else RobotInfo(Penalty.SUBSTITUTE) for j in range(11)))
        theirs = TeamInfo(9, 1, score=k // 500)
        p = GameControlData(packet_number=k & 0xFF, players_per_team=4, state=3, kick_off_team=5,
                            secondary_state=SecondaryState.THROW_IN if k % 100 < 20 else 0,
                            secondary_state_info=(9, k % 3, 0, 0) if k % 100 < 20 else (0, 0, 0, 0),
                            secs_remaining=600 - k // 2, secondary_time=k % 10, teams=(ours, theirs))
        out.append(encode(p))
    return out


def hsl_stream(n: int, version: int) -> list[bytes]:
    """n HSL packets of a plausible game (as ``game_stream``): clock, budget, set plays, penalties."""
    robot = hsl_protocol.HslRobotInfoV19 if version == 19 else hsl_protocol.HslRobotInfoV20
    pick_up = hsl_protocol.penalty_enum(version)["PICK_UP"]
    substitute = hsl_protocol.penalty_enum(version)["SUBSTITUTE"]
    out = []
    for k in range(n):
        pen = k // 40 % 2
        ours = hsl_protocol.HslTeamInfo(5, 0, 2, 1, score=k // 300, message_budget=12000 - k // 3, players=tuple(
            robot(int(pick_up) if (pen and j == 1) else 0, 10 - k % 10 if (pen and j == 1) else 0)
            if j < 5 else robot(int(substitute)) for j in range(20)))
        theirs = hsl_protocol.HslTeamInfo(9, 1, 3, 1, score=k // 500, message_budget=12000 - k // 4,
                                          players=(robot(),) * 20)
        set_play = k % 100 < 20
        p = hsl_protocol.HslControlData(version=version, packet_number=k & 0xFF, players_per_team=5, state=3,
                                        set_play=hsl_protocol.SetPlay.THROW_IN if set_play else 0,
                                        stopped=int(set_play and k % 100 < 8), kicking_team=9 if set_play else 5,
                                        secs_remaining=600 - k // 2, secondary_time=k % 10, teams=(ours, theirs))
        out.append(encode(p))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=20000)
    args = parser.parse_args()
    repeat, number = args.repeat, args.number

    stream = game_stream(2000)
    it = iter(range(1 << 62))
    whole = protocol._PACKET  # the full 688-byte layout, for the baseline

    def decode_next() -> None:
        decode(stream[next(it) % 2000])

    def baseline_unpack() -> None:
        whole.unpack(stream[next(it) % 2000])

    def decode_cold() -> None:
        protocol._team_cache.clear()  # every team block unseen
        decode(stream[next(it) % 2000])

    t_decode = median_s(decode_next, repeat, number)
    t_base = median_s(baseline_unpack, repeat, number)
    t_cold = median_s(decode_cold, repeat, max(1, number // 4))
    print("decode (HL v12, 688 bytes)")
    print(f"  game stream       {1 / t_decode:12,.0f} packets/s  {t_decode * 1e6:7.2f} us/packet")
    print(f"  cold team blocks  {1 / t_cold:12,.0f} packets/s  {t_cold * 1e6:7.2f} us/packet")
    print(f"  baseline: bare struct.unpack of 175 fields {1 / t_base:12,.0f} /s  {t_base * 1e6:7.2f} us")
    print(f"  ratio decode / baseline: {t_decode / t_base:.2f}x (cold: {t_cold / t_base:.2f}x)")

    for version in (19, 20):
        hstream = hsl_stream(2000, version)
        layout = hsl_protocol._PACKETS[version]

        def hsl_decode_next() -> None:
            decode(hstream[next(it) % 2000])

        def hsl_baseline() -> None:
            layout.unpack(hstream[next(it) % 2000])

        def hsl_cold() -> None:
            hsl_protocol._players_cache.clear()  # every players array unseen
            decode(hstream[next(it) % 2000])

        t_h = median_s(hsl_decode_next, repeat, number)
        t_hb = median_s(hsl_baseline, repeat, number)
        t_hc = median_s(hsl_cold, repeat, max(1, number // 4))
        n_fields = len(layout.unpack(hstream[0]))
        print(f"decode (HSL v{version}, {layout.size} bytes)")
        print(f"  game stream       {1 / t_h:12,.0f} packets/s  {t_h * 1e6:7.2f} us/packet")
        print(f"  cold team blocks  {1 / t_hc:12,.0f} packets/s  {t_hc * 1e6:7.2f} us/packet")
        print(f"  baseline: bare struct.unpack of {n_fields} fields {1 / t_hb:12,.0f} /s  {t_hb * 1e6:7.2f} us")
        print(f"  ratio decode / baseline: {t_h / t_hb:.2f}x (cold: {t_hc / t_hb:.2f}x)")

    packets = [decode(b) for b in stream]
    boards: list[tuple[str, object]] = [("dict", dict)]
    try:
        from soccerbt.blackboard import Blackboard
        boards.append(("Blackboard", Blackboard))
    except ImportError:  # the blackboard package is optional for this benchmark
        pass
    print("adapter apply, per call (median)")
    for name, make in boards:
        bb = make()
        adapter = GameControllerAdapter(5, 2)
        adapter.apply(packets[0], 0.0, bb)
        k_it = iter(range(1, 1 << 62))

        def game_packet() -> None:
            k = next(k_it)
            adapter.apply(packets[k % 2000], k * 0.01, bb)

        same = packets[0]
        ticking = [dataclasses.replace(same, secs_remaining=600 - k // 2) for k in range(2000)]
        c_it = iter(range(1, 1 << 62))

        def clock_packet() -> None:
            k = next(c_it)
            adapter.apply(ticking[k % 2000], k * 0.01, bb)

        def same_packet() -> None:
            adapter.apply(same, 0.0, bb)

        a = dataclasses.replace(same, state=1, secondary_state=SecondaryState.CORNER_KICK,
                                secondary_state_info=(5, 1, 0, 0), kick_off_team=9, first_half=0,
                                secs_remaining=12, secondary_time=3)
        b = same
        flip = [a, b]
        f_it = iter(range(1 << 62))

        def all_change() -> None:
            adapter.apply(flip[next(f_it) % 2], 0.0, bb)

        values = list(DEFAULTS.items())

        def baseline_writes() -> None:
            for key, value in values:
                bb[key] = value

        t_clock = median_s(clock_packet, repeat, number)
        t_game = median_s(game_packet, repeat, number)
        t_same = median_s(same_packet, repeat, number)
        t_all = median_s(all_change, repeat, number)
        t_write = median_s(baseline_writes, repeat, number)
        print(f"  [{name:10s}] new packet, only the clock moved  {t_clock * 1e6:6.2f} us")
        print(f"  [{name:10s}] game stream (penalties, set plays) {t_game * 1e6:6.2f} us")
        print(f"  [{name:10s}] same packet object again          {t_same * 1e6:6.2f} us")
        print(f"  [{name:10s}] every entry changes               {t_all * 1e6:6.2f} us")
        print(f"  [{name:10s}] baseline: 17 plain writes         {t_write * 1e6:6.2f} us  -> ratios clock "
              f"{t_clock / t_write:.2f}x, game {t_game / t_write:.2f}x, same {t_same / t_write:.2f}x, "
              f"all {t_all / t_write:.2f}x")
    per_match = t_game * 6 * 100  # 6 robots at 100 Hz for one simulated second, a new packet each step
    print(f"  6 robots x 100 Hz, a new game packet every step: {per_match * 1e3:.2f} ms per simulated second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
