"""A function's start-up leaves the garbage collector as it found it, with what was built frozen."""

from __future__ import annotations

import gc

from meta_mage.startup import starting_up


def test_the_collector_is_off_while_starting_and_on_after_with_the_start_frozen() -> None:
    gc.unfreeze()
    assert gc.isenabled()
    with starting_up():
        assert not gc.isenabled()
        built = [object() for _ in range(1000)]
    assert gc.isenabled() and gc.get_freeze_count() >= len(built)
    gc.unfreeze()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with starting_up():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
