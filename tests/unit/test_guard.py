import socket

import pytest


def test_non_loopback_connection_is_refused() -> None:
    with socket.socket() as sock, pytest.raises(RuntimeError, match="127.0.0.1"):
        sock.connect(("203.0.113.5", 80))
