from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    events: str | Unset = UNSET,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = last_event_id



    

    params: dict[str, Any] = {}

    params["events"] = events

    params["after"] = after


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/developers/events/stream",
        "params": params,
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | str:
    if response.status_code == 200:
        response_200 = response.text
        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())



        return response_403

    if response.status_code == 421:
        response_421 = Problem.from_dict(response.json())



        return response_421

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    events: str | Unset = UNSET,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,

) -> Response[Problem | str]:
    """ The caller's tenants' events as server-sent events: each `event: <kind>`,
    `id: <id>`, `data: <envelope JSON>`; a comment every 15 s; the connection
    closes after one hour locally (15 minutes on the hosted function URL);
    reconnect with `Last-Event-ID` (or `after=`) to resume with no gap and no
    duplicate. A caller holds at most 5 streams at once (429); a stream ends
    within seconds when its key is revoked or rotated, its developer
    suspended or its session signed out, and a session's when its access
    token expires.

    Args:
        events (str | Unset):
        after (str | Unset):
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | str]
     """


    kwargs = _get_kwargs(
        events=events,
after=after,
last_event_id=last_event_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    events: str | Unset = UNSET,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,

) -> Problem | str | None:
    """ The caller's tenants' events as server-sent events: each `event: <kind>`,
    `id: <id>`, `data: <envelope JSON>`; a comment every 15 s; the connection
    closes after one hour locally (15 minutes on the hosted function URL);
    reconnect with `Last-Event-ID` (or `after=`) to resume with no gap and no
    duplicate. A caller holds at most 5 streams at once (429); a stream ends
    within seconds when its key is revoked or rotated, its developer
    suspended or its session signed out, and a session's when its access
    token expires.

    Args:
        events (str | Unset):
        after (str | Unset):
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | str
     """


    return sync_detailed(
        client=client,
events=events,
after=after,
last_event_id=last_event_id,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    events: str | Unset = UNSET,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,

) -> Response[Problem | str]:
    """ The caller's tenants' events as server-sent events: each `event: <kind>`,
    `id: <id>`, `data: <envelope JSON>`; a comment every 15 s; the connection
    closes after one hour locally (15 minutes on the hosted function URL);
    reconnect with `Last-Event-ID` (or `after=`) to resume with no gap and no
    duplicate. A caller holds at most 5 streams at once (429); a stream ends
    within seconds when its key is revoked or rotated, its developer
    suspended or its session signed out, and a session's when its access
    token expires.

    Args:
        events (str | Unset):
        after (str | Unset):
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | str]
     """


    kwargs = _get_kwargs(
        events=events,
after=after,
last_event_id=last_event_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    events: str | Unset = UNSET,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,

) -> Problem | str | None:
    """ The caller's tenants' events as server-sent events: each `event: <kind>`,
    `id: <id>`, `data: <envelope JSON>`; a comment every 15 s; the connection
    closes after one hour locally (15 minutes on the hosted function URL);
    reconnect with `Last-Event-ID` (or `after=`) to resume with no gap and no
    duplicate. A caller holds at most 5 streams at once (429); a stream ends
    within seconds when its key is revoked or rotated, its developer
    suspended or its session signed out, and a session's when its access
    token expires.

    Args:
        events (str | Unset):
        after (str | Unset):
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | str
     """


    return (await asyncio_detailed(
        client=client,
events=events,
after=after,
last_event_id=last_event_id,

    )).parsed
