"""The address checks of web_fetch's HTTP side: every hop's name resolved once, every answer checked, and the
connection made to the checked address (so a DNS rebinding between check and connect has nothing to rebind)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

import pytest

from sneakycode.config.tool_settings import WebSettings
from sneakycode.errors import ToolError
from sneakycode.tools.web.fetch import Fetcher, IPAddress, checked_address, internal_kind
from tests.tools.web.site import Site

PUBLIC = "93.184.215.14"


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"), ("10.1.2.3", "private"), ("192.168.0.10", "private"), ("172.16.5.4", "private"),
        ("169.254.169.254", "link-local"), ("0.0.0.0", "unspecified"), ("224.0.0.1", "multicast"),
        ("100.64.0.1", "non-public"), ("::1", "loopback"), ("fd00::1", "private"), ("fe80::1", "link-local"),
        ("::ffff:127.0.0.1", "loopback"), ("::ffff:169.254.169.254", "link-local"),
        ("64:ff9b::a9fe:a9fe", "link-local"),
        ("2002:7f00:1::", "loopback"), ("ff02::1", "multicast"), ("::", "unspecified"),
        (PUBLIC, None), ("2606:4700::6810:84e5", None),
    ],
)
def test_internal_addresses_are_named(address: str, kind: str | None) -> None:
    assert internal_kind(ipaddress.ip_address(address)) == kind


def test_a_name_with_any_internal_answer_is_refused() -> None:
    def resolver(host: str, port: int) -> list[str]:
        return [PUBLIC, "169.254.169.254"]

    with pytest.raises(ToolError) as caught:
        checked_address("metadata.example", 80, internal_kind, resolver)
    assert caught.value.code == "blocked_address" and "169.254.169.254" in caught.value.error


def test_a_public_name_gives_the_checked_address_to_connect_to() -> None:
    assert checked_address("example.org", 443, internal_kind, lambda host, port: [PUBLIC]) == PUBLIC


def test_a_name_that_does_not_resolve_is_fetch_failed() -> None:
    def resolver(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    with pytest.raises(ToolError) as caught:
        checked_address("nowhere.invalid", 80, internal_kind, resolver)
    assert caught.value.code == "fetch_failed"


@pytest.fixture
def site() -> Iterator[Site]:
    with Site({}) as running:
        yield running


def only_first_loopback(address: IPAddress) -> str | None:
    """A policy for one test: 127.0.0.1 counts as public, every other address as private."""
    return None if str(address) == "127.0.0.1" else "private"


def test_a_redirect_to_a_private_address_is_refused_at_that_hop(site: Site) -> None:
    """The first hop passes the policy; the redirect to 127.0.0.2 is checked again and refused unfetched."""
    port = site.server.server_address[1]
    site.routes["/start"] = (302, {"Location": f"http://127.0.0.2:{port}/admin"}, b"")
    fetcher = Fetcher(WebSettings(), policy=only_first_loopback)
    with pytest.raises(ToolError) as caught:
        fetcher.get(f"{site.url}/start")
    assert caught.value.code == "blocked_address" and "127.0.0.2" in caught.value.error
    assert site.hits == {"/start": 1}


def test_a_redirect_to_a_name_that_resolves_privately_is_refused(site: Site) -> None:
    site.routes["/start"] = (302, {"Location": "http://intranet.example/secrets"}, b"")
    resolved: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        resolved.append(host)
        return ["10.0.0.7"]

    with pytest.raises(ToolError) as caught:
        Fetcher(WebSettings(), resolver=resolver, policy=only_first_loopback).get(f"{site.url}/start")
    assert caught.value.code == "blocked_address" and "intranet.example (10.0.0.7)" in caught.value.error
    assert resolved == ["intranet.example"]


def test_the_connection_goes_to_the_resolved_address_with_the_name_as_host(site: Site) -> None:
    """One lookup per hop, and the request reaches that address: nothing is looked up a second time."""
    site.routes["/page"] = (200, {"Content-Type": "text/plain"}, b"hello")
    port = site.server.server_address[1]
    lookups: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        lookups.append(host)
        return ["127.0.0.1"]

    response = Fetcher(WebSettings(allow_private=True), resolver=resolver).get(f"http://docs.example:{port}/page")
    assert response.body == b"hello" and response.url == f"http://docs.example:{port}/page"
    assert lookups == ["docs.example"] and site.hosts == [f"docs.example:{port}"]


def test_allow_private_false_refuses_loopback_itself(site: Site) -> None:
    with pytest.raises(ToolError) as caught:
        Fetcher(WebSettings()).get(f"{site.url}/anything")
    assert caught.value.code == "blocked_address" and sum(site.hits.values()) == 0


def test_a_url_the_parsers_read_differently_is_refused() -> None:
    with pytest.raises(ToolError) as caught:
        Fetcher(WebSettings(allow_private=True)).get("http://a.example\\@127.0.0.1/")
    assert caught.value.code == "fetch_failed"
