"""What one client may take of the service, so that it cannot starve the others.

``Limits`` travels from ``kartludo serve``'s options (or ``create_app(limits=…)``) to
the app (live streams per caller, body size, JSON nesting depth, content type) and to
uvicorn (``GuardedHttpProtocol``: how long a client may take to send its request line
and headers, and then its body, and how large the headers may be).
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
from typing import Any

import msgspec
from litestar.connection import ASGIConnection
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Limits(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    #: open live streams per seat token
    streams_per_seat: int = 8
    #: open live streams per TD token (a TD may watch every table of a round)
    streams_per_td: int = 64
    #: open live streams without a token, from all clients together
    anonymous_streams: int = 64
    #: open live streams without a token from one client address
    anonymous_streams_per_address: int = 16
    #: a request body's size in bytes (413 beyond)
    max_body_bytes: int = 64 * 1024
    #: nesting depth of a JSON body (the API's deepest body is 2)
    max_json_depth: int = 16
    #: seconds a client may take to send a request's line and headers (then the connection closes)
    header_timeout: float = 10.0
    #: seconds a client may take to send a request's body once its headers are in
    body_timeout: float = 10.0
    #: request line and headers in bytes (431 beyond)
    max_header_bytes: int = 32 * 1024
    #: seconds an idle keep-alive connection stays open
    keep_alive_timeout: float = 5.0
    #: the reverse proxies (addresses or networks) whose ``X-Forwarded-For`` names the
    #: client; none by default, so a client is always the address it connects from
    trusted_proxies: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in self.__struct_fields__:
            if name != "trusted_proxies" and getattr(self, name) <= 0:
                raise ValueError(f"limit {name} must be positive, not {getattr(self, name)}")
        for proxy in self.trusted_proxies:
            try:
                ipaddress.ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(f"trusted proxy {proxy!r} is not an IP address or network "
                                 "(e.g. 10.0.0.5, 10.0.0.0/24, ::1)") from None

    def uvicorn_options(self) -> dict[str, Any]:
        """Keywords for ``uvicorn.run``/``uvicorn.Config`` that enforce the connection
        limits and leave the client's address as it connected (``client_address``
        alone reads ``X-Forwarded-For``, from ``trusted_proxies`` only)."""
        return {"http": guarded_protocol(self), "timeout_keep_alive": self.keep_alive_timeout,
                "proxy_headers": False}

    def trusts(self, address: str) -> bool:
        """Whether ``address`` is one of ``trusted_proxies``."""
        return _trusted(self.trusted_proxies, address)


@functools.lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]) -> list[Network]:
    return [ipaddress.ip_network(p, strict=False) for p in proxies]


def _trusted(proxies: tuple[str, ...], address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in net for net in _networks(proxies) if net.version == ip.version)


def client_address(connection: ASGIConnection[Any, Any, Any, Any], limits: Limits) -> str:
    """Whom a request is from, for the per-address allowances: the address it connects
    from, unless that is a trusted proxy (``--trusted-proxy``); then the last address in
    ``X-Forwarded-For`` that is not a trusted proxy itself (each proxy appends whom it
    heard from; what lies left of that the client wrote, and is ignored), or the proxy
    itself when the header is missing or its entry there is not an address. No proxy is
    trusted by default, not even 127.0.0.1: a header any client can send decides nothing."""
    peer = connection.client.host if connection.client else "unknown"
    if not limits.trusted_proxies or not limits.trusts(peer):
        return peer
    hops = [h.strip() for v in connection.headers.getall("x-forwarded-for", []) for h in v.split(",")]
    for hop in reversed([h for h in hops if h]):
        if not limits.trusts(hop):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return peer  # the proxy wrote something that is no address: count it as the proxy's
        peer = hop
    return peer


def json_depth(body: bytes) -> int:
    """How deeply ``body``'s arrays and objects nest (strings skipped; the body need
    not be valid JSON: this runs before it is parsed)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


_408 = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
        b"content-length: %d\r\n\r\n%s")
_431 = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"connection: close\r\ncontent-length: %d\r\n\r\n%s")


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline for each request's headers and
    body and a cap on the headers' size (uvicorn itself waits for them forever, so a
    client trickling bytes would hold a connection for good)."""

    limits = Limits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._header_bytes = 0
        self._begun = False  # has the awaited request sent its first byte?

    def _arm(self, seconds: float, message: bytes) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._expire, message)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self, message: bytes) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        awaiting_headers = self.cycle is None or self.cycle.response_complete
        if (awaiting_headers and self._begun) or (not awaiting_headers and not self.cycle.response_started):
            self.transport.write(_408 % (len(message), message))
        self.transport.close()  # an idle connection closes quietly, as after uvicorn's keep-alive timeout

    def _await_headers(self) -> None:
        self._begun = False
        self._arm(self.limits.header_timeout,
                  b"the request line and headers did not arrive within %gs" % self.limits.header_timeout)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._header_bytes > self.limits.max_header_bytes and not self.transport.is_closing():
            message = b"the request line and headers exceed %d bytes" % self.limits.max_header_bytes
            self._disarm()
            self.transport.write(_431 % (len(message), message))
            self.transport.close()

    def on_message_begin(self) -> None:
        self._begun = True
        self._header_bytes = 0
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        self._header_bytes += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_bytes += len(name) + len(value) + 4
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._arm(self.limits.body_timeout,
                  b"the request body did not arrive within %gs" % self.limits.body_timeout)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        waiting = not self.pipeline  # otherwise the next request's headers are already in
        super().on_response_complete()
        if waiting and not self.transport.is_closing():
            self._await_headers()


def guarded_protocol(limits: Limits) -> type[GuardedHttpProtocol]:
    """The protocol class enforcing ``limits`` (uvicorn takes a class, not an instance)."""
    return type("GuardedHttpProtocol", (GuardedHttpProtocol,), {"limits": limits})
