"""The collector paused around a draw or close (services/gc_pause.py): back on when the last overlapping call ends,
and left off if it was off before."""
from __future__ import annotations

import gc
import threading

from chalicelib.services.gc_pause import gc_paused


def test_the_collector_runs_again_once_the_last_overlapping_call_ends():
    assert gc.isenabled()
    inside, release = threading.Event(), threading.Event()

    @gc_paused()
    def long_call():
        inside.set()
        release.wait(5)

    t = threading.Thread(target=long_call)
    t.start()
    assert inside.wait(5)
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()          # the other call is still running
    release.set()
    t.join(5)
    assert gc.isenabled()


def test_a_collector_off_before_stays_off():
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_error_inside_still_turns_it_back_on():
    try:
        with gc_paused():
            raise ValueError("x")
    except ValueError:
        pass
    assert gc.isenabled()


def test_what_a_paused_call_kept_goes_to_the_oldest_generation_without_a_walk():
    with gc_paused():
        kept = [[k] for k in range(1000)]
    young = gc.get_objects(generation=0)
    assert not any(o is kept for o in young)
    assert any(o is kept for o in gc.get_objects(generation=2))
