"""The request guard's rules one by one (the running server is attacked in tests/faults/test_server_security.py)."""

from __future__ import annotations

import pytest

from navicite.server.links import public_link
from navicite.server.security import HostRule, host_name


@pytest.mark.parametrize(("value", "name"), [
    ("localhost:8000", "localhost"), ("127.0.0.1", "127.0.0.1"), ("[::1]:8000", "::1"), ("::1", "::1"),
    ("Navicite.LAN:443", "navicite.lan"),
])
def test_host_names_lose_port_and_brackets(value: str, name: str) -> None:
    assert host_name(value) == name


def test_a_loopback_server_answers_loopback_names_and_allowed_ones_only() -> None:
    rule = HostRule("127.0.0.1", ["navicite.lan"])
    for name in ("localhost", "127.0.0.1", "127.0.0.2", "::1", "navicite.lan"):
        assert rule.allows(name), name
    for name in ("attacker.example", "192.168.1.5", "localhost.attacker.example", "127.0.0.1.nip.io"):
        assert not rule.allows(name), name


def test_a_server_on_all_interfaces_answers_any_address_but_not_any_name() -> None:
    rule = HostRule("0.0.0.0", [])
    assert rule.allows("192.168.1.5") and rule.allows("fe80::1") and rule.allows("localhost")
    assert not rule.allows("attacker.example")
    assert HostRule("0.0.0.0", ["*"]).allows("attacker.example")
    assert HostRule("myhost", []).allows("myhost")


def test_links_of_files_become_the_servers_document_route() -> None:
    base = "http://127.0.0.1:8000/"
    assert public_link("file:///home/me/papers/a b.pdf", "papers/a b.pdf", base) == \
        "http://127.0.0.1:8000/v1/documents/papers%2Fa%20b.pdf"
    assert public_link("https://example.org/a.pdf", "a", base) == "https://example.org/a.pdf"
    assert public_link("", "a", base) == ""
    assert public_link("javascript:alert(1)", "a", base).startswith("http://127.0.0.1:8000/v1/documents/")
