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
from uuid import UUID



def _get_kwargs(
    property_id: UUID,
    *,
    tenant_id: UUID,
    events: str | Unset = UNSET,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = last_event_id



    

    params: dict[str, Any] = {}

    json_tenant_id = str(tenant_id)
    params["tenantId"] = json_tenant_id

    params["events"] = events

    params["after"] = after


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/properties/{property_id}/events/stream".format(property_id=quote(str(property_id), safe=""),),
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

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

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
    property_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,
    events: str | Unset = UNSET,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,

) -> Response[Problem | str]:
    """ The events about a home's things as server-sent events (framed as the
    developer stream's: `event:`, `id:`, `data:` with the envelope; a comment
    every 15 s; resume with `Last-Event-ID` or `after=`): its devices' online,
    offline, telemetry and command results, and its endpoints' state. Anyone
    who sees the home may listen (a guest too); nothing about people,
    notifications, developers or webhooks is sent, and nothing from before
    the caller's access to the home began (a new member, a guest's stay).
    A caller holds at most 5 streams at once (429); a stream ends within
    seconds of its credential losing the home.

    Args:
        property_id (UUID):
        tenant_id (UUID):
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
        property_id=property_id,
tenant_id=tenant_id,
events=events,
after=after,
last_event_id=last_event_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    property_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,
    events: str | Unset = UNSET,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,

) -> Problem | str | None:
    """ The events about a home's things as server-sent events (framed as the
    developer stream's: `event:`, `id:`, `data:` with the envelope; a comment
    every 15 s; resume with `Last-Event-ID` or `after=`): its devices' online,
    offline, telemetry and command results, and its endpoints' state. Anyone
    who sees the home may listen (a guest too); nothing about people,
    notifications, developers or webhooks is sent, and nothing from before
    the caller's access to the home began (a new member, a guest's stay).
    A caller holds at most 5 streams at once (429); a stream ends within
    seconds of its credential losing the home.

    Args:
        property_id (UUID):
        tenant_id (UUID):
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
        property_id=property_id,
client=client,
tenant_id=tenant_id,
events=events,
after=after,
last_event_id=last_event_id,

    ).parsed

async def asyncio_detailed(
    property_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,
    events: str | Unset = UNSET,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,

) -> Response[Problem | str]:
    """ The events about a home's things as server-sent events (framed as the
    developer stream's: `event:`, `id:`, `data:` with the envelope; a comment
    every 15 s; resume with `Last-Event-ID` or `after=`): its devices' online,
    offline, telemetry and command results, and its endpoints' state. Anyone
    who sees the home may listen (a guest too); nothing about people,
    notifications, developers or webhooks is sent, and nothing from before
    the caller's access to the home began (a new member, a guest's stay).
    A caller holds at most 5 streams at once (429); a stream ends within
    seconds of its credential losing the home.

    Args:
        property_id (UUID):
        tenant_id (UUID):
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
        property_id=property_id,
tenant_id=tenant_id,
events=events,
after=after,
last_event_id=last_event_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    property_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,
    events: str | Unset = UNSET,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,

) -> Problem | str | None:
    """ The events about a home's things as server-sent events (framed as the
    developer stream's: `event:`, `id:`, `data:` with the envelope; a comment
    every 15 s; resume with `Last-Event-ID` or `after=`): its devices' online,
    offline, telemetry and command results, and its endpoints' state. Anyone
    who sees the home may listen (a guest too); nothing about people,
    notifications, developers or webhooks is sent, and nothing from before
    the caller's access to the home began (a new member, a guest's stay).
    A caller holds at most 5 streams at once (429); a stream ends within
    seconds of its credential losing the home.

    Args:
        property_id (UUID):
        tenant_id (UUID):
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
        property_id=property_id,
client=client,
tenant_id=tenant_id,
events=events,
after=after,
last_event_id=last_event_id,

    )).parsed
