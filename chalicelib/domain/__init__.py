"""The day's records and what may happen to them (issue 37): typed, frozen records whose transitions check who
may act, move the version and return the new record with the domain events it raises.

Pure like the engine: no boto3, no Chalice, no store, no clock (`now` is passed in). Services load a record,
call a transition, save the record (with its audit row, in one transaction) and dispatch the events."""
