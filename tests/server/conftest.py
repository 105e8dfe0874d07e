"""A real ``luncosim serve`` on the demo twin for the module's tests."""

from __future__ import annotations

import pytest

from tests.server.serving import start_server, stop_server


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    s = start_server(tmp_path_factory.mktemp("serve"))
    yield s
    stop_server(s)
