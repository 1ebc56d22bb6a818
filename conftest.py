"""Shared test setup: no test may reach beyond the loopback interface."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _is_local(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded(real: Any) -> Any:
    def connect(self: socket.socket, address: Any) -> Any:
        if not _is_local(address):
            raise RuntimeError(f"test tried to reach {address!r}: tests stay on 127.0.0.1")
        return real(self, address)

    return connect


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", _guarded(_real_connect))
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded(_real_connect_ex))
    yield


@pytest.fixture(autouse=True)
def _private_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the default checkpoint file of every test inside its own tmp dir."""
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_HOME", str(tmp_path / "home"))
    # A deployment's default store must not leak into tests that expect the default file.
    monkeypatch.delenv("LLM_QUALITATIVE_SORT_CHECKPOINT", raising=False)
