"""The settings are read from the environment by hand (chalicelib/config.py, not pydantic-settings: its import was
~45 ms of every cold start): names in any case, integers where the default is one, unknown variables ignored."""
from __future__ import annotations

import pytest

from chalicelib.config import Settings


def test_each_setting_comes_from_its_variable_in_any_case_and_the_rest_keep_their_defaults():
    s = Settings.from_environ({"STAGE": "prod", "table_name": "t1", "Publish_Page_Rows": "40", "PATH": "/usr/bin",
                               "STRIPE_SECRET_KEY": ""})
    assert (s.stage, s.table_name, s.publish_page_rows, s.stripe_secret_key) == ("prod", "t1", 40, "")
    assert (s.hold_minutes, s.publish_bucket, s.api_url) == (35, None, "http://127.0.0.1:8000")
    assert not hasattr(s, "path")


def test_an_integer_setting_that_is_not_one_is_refused_by_name():
    with pytest.raises(ValueError, match="MAX_BODY_BYTES must be an integer"):
        Settings.from_environ({"MAX_BODY_BYTES": "64k"})


def test_the_process_environment_is_read_when_none_is_given(monkeypatch):
    monkeypatch.setenv("TRUSTED_PROXY_HOPS", "2")
    monkeypatch.setenv("SITE_URL", "https://example.org")
    s = Settings.from_environ()
    assert (s.trusted_proxy_hops, s.site_url) == (2, "https://example.org")
