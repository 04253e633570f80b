from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.enabled import Enabled
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    webhook_id: UUID,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/webhooks/{webhook_id}/enable".format(webhook_id=quote(str(webhook_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Enabled | Problem:
    if response.status_code == 200:
        response_200 = Enabled.from_dict(response.json())



        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())



        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Enabled | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[Enabled | Problem]:
    """ Re-enables a disabled endpoint: active again with a zero failure count,
    and every delivery held while it was disabled is sent again, oldest event
    first, as a new series (new `X-SVC-Delivery`, attempts from zero; the
    envelope id is unchanged, so receivers deduplicate). Deliveries that had
    failed for good before the disable stay failed. Enabling an active
    endpoint changes nothing.

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Enabled | Problem]
     """


    kwargs = _get_kwargs(
        webhook_id=webhook_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Enabled | Problem | None:
    """ Re-enables a disabled endpoint: active again with a zero failure count,
    and every delivery held while it was disabled is sent again, oldest event
    first, as a new series (new `X-SVC-Delivery`, attempts from zero; the
    envelope id is unchanged, so receivers deduplicate). Deliveries that had
    failed for good before the disable stay failed. Enabling an active
    endpoint changes nothing.

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Enabled | Problem
     """


    return sync_detailed(
        webhook_id=webhook_id,
client=client,

    ).parsed

async def asyncio_detailed(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[Enabled | Problem]:
    """ Re-enables a disabled endpoint: active again with a zero failure count,
    and every delivery held while it was disabled is sent again, oldest event
    first, as a new series (new `X-SVC-Delivery`, attempts from zero; the
    envelope id is unchanged, so receivers deduplicate). Deliveries that had
    failed for good before the disable stay failed. Enabling an active
    endpoint changes nothing.

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Enabled | Problem]
     """


    kwargs = _get_kwargs(
        webhook_id=webhook_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Enabled | Problem | None:
    """ Re-enables a disabled endpoint: active again with a zero failure count,
    and every delivery held while it was disabled is sent again, oldest event
    first, as a new series (new `X-SVC-Delivery`, attempts from zero; the
    envelope id is unchanged, so receivers deduplicate). Deliveries that had
    failed for good before the disable stay failed. Enabling an active
    endpoint changes nothing.

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Enabled | Problem
     """


    return (await asyncio_detailed(
        webhook_id=webhook_id,
client=client,

    )).parsed
