"""The domain: typed, frozen records and their transitions, pure like the engine (no I/O, no clock: `now` is
passed in). A transition checks the record's state, moves its version and returns the new record with the
domain events it raises; the services load, transition, save and dispatch (issue 37)."""
