"""The confidence threshold of `confident`: high first, decaying per forward to a floor, raised near the end."""

import pytest

from globalgen_ros.decoding.confident import ThresholdSchedule

END = 7


def test_threshold_decays_to_floor():
    s = ThresholdSchedule(tau=0.93, decay=0.97, floor=0.6, tau_end=0.95, end_window=4)
    taus = [s.at(step) for step in range(40)]
    assert taus[0] == pytest.approx(0.93)
    assert taus[1] == pytest.approx(0.93 * 0.97)
    assert all(a >= b for a, b in zip(taus, taus[1:], strict=False))
    assert taus[-1] == pytest.approx(0.6)


def test_threshold_is_raised_for_end_and_near_the_limit():
    s = ThresholdSchedule(tau=0.93, decay=0.9, floor=0.5, tau_end=0.95, end_window=4)
    assert s.for_token(20, 123, END, room=30) == pytest.approx(0.5)
    assert s.for_token(20, END, END, room=30) == pytest.approx(0.95)
    assert s.for_token(20, 123, END, room=3) == pytest.approx(0.95)
    assert s.for_token(0, 123, END, room=3) == pytest.approx(0.95)
