from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.enable_webhook_request import EnableWebhookRequest
from ...models.enabled import Enabled
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    webhook_id: UUID,
    *,
    body: EnableWebhookRequest | None | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/webhooks/{webhook_id}/enable".format(webhook_id=quote(str(webhook_id), safe=""),),
    }

    
    if isinstance(body, EnableWebhookRequest):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Enabled | Problem:
    if response.status_code == 200:
        response_200 = Enabled.from_dict(response.json())



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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

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
    body: EnableWebhookRequest | None | Unset = UNSET,

) -> Response[Enabled | Problem]:
    """ Re-enables a disabled endpoint: active again with a zero failure count,
    and every delivery held while it was disabled is sent again, oldest event
    first, as a new series (new `X-SVC-Delivery`, attempts from zero; the
    envelope id is unchanged, so receivers deduplicate). Deliveries that had
    failed for good before the disable stay failed unless `recover` is true,
    which also starts a recovery of everything it missed (`recovery`).
    Enabling an active endpoint changes nothing but that recovery.

    Args:
        webhook_id (UUID):
        body (EnableWebhookRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Enabled | Problem]
     """


    kwargs = _get_kwargs(
        webhook_id=webhook_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,
    body: EnableWebhookRequest | None | Unset = UNSET,

) -> Enabled | Problem | None:
    """ Re-enables a disabled endpoint: active again with a zero failure count,
    and every delivery held while it was disabled is sent again, oldest event
    first, as a new series (new `X-SVC-Delivery`, attempts from zero; the
    envelope id is unchanged, so receivers deduplicate). Deliveries that had
    failed for good before the disable stay failed unless `recover` is true,
    which also starts a recovery of everything it missed (`recovery`).
    Enabling an active endpoint changes nothing but that recovery.

    Args:
        webhook_id (UUID):
        body (EnableWebhookRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Enabled | Problem
     """


    return sync_detailed(
        webhook_id=webhook_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,
    body: EnableWebhookRequest | None | Unset = UNSET,

) -> Response[Enabled | Problem]:
    """ Re-enables a disabled endpoint: active again with a zero failure count,
    and every delivery held while it was disabled is sent again, oldest event
    first, as a new series (new `X-SVC-Delivery`, attempts from zero; the
    envelope id is unchanged, so receivers deduplicate). Deliveries that had
    failed for good before the disable stay failed unless `recover` is true,
    which also starts a recovery of everything it missed (`recovery`).
    Enabling an active endpoint changes nothing but that recovery.

    Args:
        webhook_id (UUID):
        body (EnableWebhookRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Enabled | Problem]
     """


    kwargs = _get_kwargs(
        webhook_id=webhook_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,
    body: EnableWebhookRequest | None | Unset = UNSET,

) -> Enabled | Problem | None:
    """ Re-enables a disabled endpoint: active again with a zero failure count,
    and every delivery held while it was disabled is sent again, oldest event
    first, as a new series (new `X-SVC-Delivery`, attempts from zero; the
    envelope id is unchanged, so receivers deduplicate). Deliveries that had
    failed for good before the disable stay failed unless `recover` is true,
    which also starts a recovery of everything it missed (`recovery`).
    Enabling an active endpoint changes nothing but that recovery.

    Args:
        webhook_id (UUID):
        body (EnableWebhookRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Enabled | Problem
     """


    return (await asyncio_detailed(
        webhook_id=webhook_id,
client=client,
body=body,

    )).parsed
