"""The generated client (``alyt_client``), raising and retrying.

:func:`create_client` answers a generated ``Client`` or
``AuthenticatedClient`` (subclassed here, so every generated operation
takes it) whose httpx clients raise :class:`AlytProblemError` for every
non-2xx answer — statuses the contract does not document included, where
the generated code alone would return None — and retry as
:class:`RetryPolicy` says.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any, Callable, Dict, Optional, Union

import httpx
from attrs import define, field

from alyt_client import AuthenticatedClient, Client

from .errors import AlytProblemError
from .retry import AsyncRetryTransport, RetryPolicy, RetryTransport

# A bearer token, or a function asked for it at each request (or stream
# connection); a function may take one argument, ``expired``: True once the
# token was refused with a 401 (refresh it then).
TokenSource = Union[str, Callable[..., Optional[str]]]

DEFAULT_RETRY = RetryPolicy()


def call_token(token: TokenSource, expired: bool) -> Optional[str]:
    """The token ``token`` stands for; ``expired`` is passed to a function
    that takes an argument (a fixed string has no fresh one to give)."""
    if isinstance(token, str):
        return None if expired else token
    try:
        takes_argument = bool(inspect.signature(token).parameters)
    except (TypeError, ValueError):
        takes_argument = True
    return token(expired) if takes_argument else token()


class _BearerAuth(httpx.Auth):
    def __init__(self, token: TokenSource, prefix: str = "Bearer", header: str = "Authorization") -> None:
        self._token, self._prefix, self._header = token, prefix, header

    def auth_flow(self, request: httpx.Request):
        token = call_token(self._token, False)
        if token:
            request.headers[self._header] = f"{self._prefix} {token}" if self._prefix else token
        yield request


def _raise_for_problem(response: httpx.Response) -> None:
    if not response.is_success:
        response.read()
        raise AlytProblemError.from_response(response)


async def _araise_for_problem(response: httpx.Response) -> None:
    if not response.is_success:
        await response.aread()
        raise AlytProblemError.from_response(response)


def _httpx_options(client: Any, asynchronous: bool, auth: Optional[httpx.Auth]) -> Dict[str, Any]:
    args = dict(client._httpx_args)
    hooks = {kind: list(found) for kind, found in (args.pop("event_hooks", None) or {}).items()}
    transport = args.pop("transport", None)
    if asynchronous:
        transport = transport if isinstance(transport, httpx.AsyncBaseTransport) else None
        transport = transport or httpx.AsyncHTTPTransport(verify=client._verify_ssl)
        if client.retry is not None and client.retry.retries > 0:
            transport = AsyncRetryTransport(transport, client.retry)
        if client.raise_on_error:
            hooks.setdefault("response", []).append(_araise_for_problem)
    else:
        transport = transport if isinstance(transport, httpx.BaseTransport) else None
        transport = transport or httpx.HTTPTransport(verify=client._verify_ssl)
        if client.retry is not None and client.retry.retries > 0:
            transport = RetryTransport(transport, client.retry)
        if client.raise_on_error:
            hooks.setdefault("response", []).append(_raise_for_problem)
    return dict(
        base_url=client._base_url,
        cookies=client._cookies,
        headers=client._headers,
        timeout=client._timeout,
        verify=client._verify_ssl,
        follow_redirects=client._follow_redirects,
        transport=transport,
        event_hooks=hooks,
        auth=auth,
        **args,
    )


@define
class AlytClient(Client):
    """The generated ``Client`` (no token), raising :class:`AlytProblemError`
    when ``raise_on_error`` and retrying by ``retry`` (None: never)."""

    retry: Optional[RetryPolicy] = field(factory=RetryPolicy, kw_only=True)
    raise_on_error: bool = field(default=True, kw_only=True)

    def get_httpx_client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(**_httpx_options(self, False, None))
        return self._client

    def get_async_httpx_client(self) -> httpx.AsyncClient:
        if self._async_client is None:
            self._async_client = httpx.AsyncClient(**_httpx_options(self, True, None))
        return self._async_client


@define
class AlytAuthenticatedClient(AuthenticatedClient):
    """The generated ``AuthenticatedClient``, raising and retrying as
    :class:`AlytClient`; ``token`` may also be a function, asked at each
    request (e.g. a :class:`SessionToken`)."""

    retry: Optional[RetryPolicy] = field(factory=RetryPolicy, kw_only=True)
    raise_on_error: bool = field(default=True, kw_only=True)

    def _auth(self) -> httpx.Auth:
        return _BearerAuth(self.token, self.prefix, self.auth_header_name)

    def get_httpx_client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(**_httpx_options(self, False, self._auth()))
        return self._client

    def get_async_httpx_client(self) -> httpx.AsyncClient:
        if self._async_client is None:
            self._async_client = httpx.AsyncClient(**_httpx_options(self, True, self._auth()))
        return self._async_client


def create_client(
    base_url: str,
    token: Optional[TokenSource] = None,
    *,
    raise_on_error: bool = True,
    retry: Optional[RetryPolicy] = DEFAULT_RETRY,
    timeout: Union[float, httpx.Timeout] = 30.0,
    follow_redirects: bool = True,
    **kwargs: Any,
) -> Union[AlytClient, AlytAuthenticatedClient]:
    """A client of the API at ``base_url`` (the host; paths carry ``/v1``)
    for the generated operations (``alyt_client.api...sync(client=...)``).

    ``token`` (a session's access token, a key, an app or widget token, or
    a function answering one) is sent as the bearer token of every request.
    Every non-2xx answer raises :class:`AlytProblemError` (unless
    ``raise_on_error`` is False); 429 and 503, and idempotent requests
    without an answer, are retried by ``retry`` (None: never). Other keyword
    arguments go to the generated client (``headers``, ``httpx_args``...).
    """
    timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
    common = dict(
        raise_on_error=raise_on_error, retry=retry, timeout=timeout, follow_redirects=follow_redirects, **kwargs
    )
    if token is None:
        return AlytClient(base_url=base_url, **common)
    return AlytAuthenticatedClient(base_url=base_url, token=token, **common)


class SessionToken:
    """A token function for :class:`EventStream` (or :func:`create_client`)
    that keeps a signed-in session going: the current access token, and a
    refreshed one (``POST /v1/auth/refresh``, or
    ``/v1/developers/auth/refresh`` when ``developer``) once the old one was
    refused. It answers None when the platform refuses the refresh (the
    session was signed out or revoked), which ends a stream with
    :class:`CredentialRevokedError`; other failures raise (a stream
    retries). ``on_refresh(access_token, refresh_token)`` is told each new
    pair: keep the refresh token, it rotates on every refresh.
    """

    def __init__(
        self,
        base_url: str,
        access_token: str,
        refresh_token: str,
        developer: bool = False,
        on_refresh: Optional[Callable[[str, str], None]] = None,
        http: Optional[httpx.Client] = None,
    ) -> None:
        self.access_token = access_token
        self.refresh_token = refresh_token
        self._url = base_url.rstrip("/") + ("/v1/developers/auth/refresh" if developer else "/v1/auth/refresh")
        self._on_refresh = on_refresh
        self._http = http or httpx.Client(timeout=30.0)
        # One refresh at a time: presenting a rotated refresh token again
        # would revoke the whole session.
        self._lock = threading.Lock()

    def __call__(self, expired: bool = False) -> Optional[str]:
        if not expired:
            return self.access_token
        with self._lock:
            response = self._http.post(self._url, json={"refreshToken": self.refresh_token})
            if response.status_code in (400, 401):
                return None  # unknown, rotated, revoked or expired: the session is over
            if not response.is_success:
                raise AlytProblemError.from_response(response)
            pair = response.json()
            self.access_token, self.refresh_token = pair["accessToken"], pair["refreshToken"]
        if self._on_refresh is not None:
            self._on_refresh(self.access_token, self.refresh_token)
        return self.access_token
