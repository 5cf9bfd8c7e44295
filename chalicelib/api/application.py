"""The Chalice app class. Chalice keeps the request being handled on the app object; a Lambda handles one
request at a time, but the venue's local server (scripts/api_server.py) runs many threads on one app, so
the request (and the Lambda context) are kept per thread."""
from __future__ import annotations

import threading

from chalice import Chalice


class CardGamesApp(Chalice):
    _local = threading.local()

    @property
    def current_request(self):
        return getattr(self._local, "request", None)

    @current_request.setter
    def current_request(self, value) -> None:
        self._local.request = value

    @property
    def lambda_context(self):
        return getattr(self._local, "context", None)

    @lambda_context.setter
    def lambda_context(self, value) -> None:
        self._local.context = value
