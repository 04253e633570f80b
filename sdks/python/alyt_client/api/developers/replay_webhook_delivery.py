from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.webhook_delivery import WebhookDelivery
from typing import cast
from uuid import UUID



def _get_kwargs(
    webhook_id: UUID,
    delivery_id: UUID,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/webhooks/{webhook_id}/deliveries/{delivery_id}/replay".format(webhook_id=quote(str(webhook_id), safe=""),delivery_id=quote(str(delivery_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | WebhookDelivery:
    if response.status_code == 202:
        response_202 = WebhookDelivery.from_dict(response.json())



        return response_202

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | WebhookDelivery]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    webhook_id: UUID,
    delivery_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | WebhookDelivery]:
    """ Sends one of the endpoint's logged deliveries (its last fifty) again:
    the same event (same id and body, so receivers deduplicate on it), a
    new attempt signed at a new time, due at once. A delivery waiting for
    its next retry is brought forward; one not attempted yet is answered as
    it is.

    Args:
        webhook_id (UUID):
        delivery_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WebhookDelivery]
     """


    kwargs = _get_kwargs(
        webhook_id=webhook_id,
delivery_id=delivery_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    webhook_id: UUID,
    delivery_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Problem | WebhookDelivery | None:
    """ Sends one of the endpoint's logged deliveries (its last fifty) again:
    the same event (same id and body, so receivers deduplicate on it), a
    new attempt signed at a new time, due at once. A delivery waiting for
    its next retry is brought forward; one not attempted yet is answered as
    it is.

    Args:
        webhook_id (UUID):
        delivery_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WebhookDelivery
     """


    return sync_detailed(
        webhook_id=webhook_id,
delivery_id=delivery_id,
client=client,

    ).parsed

async def asyncio_detailed(
    webhook_id: UUID,
    delivery_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | WebhookDelivery]:
    """ Sends one of the endpoint's logged deliveries (its last fifty) again:
    the same event (same id and body, so receivers deduplicate on it), a
    new attempt signed at a new time, due at once. A delivery waiting for
    its next retry is brought forward; one not attempted yet is answered as
    it is.

    Args:
        webhook_id (UUID):
        delivery_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WebhookDelivery]
     """


    kwargs = _get_kwargs(
        webhook_id=webhook_id,
delivery_id=delivery_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    webhook_id: UUID,
    delivery_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Problem | WebhookDelivery | None:
    """ Sends one of the endpoint's logged deliveries (its last fifty) again:
    the same event (same id and body, so receivers deduplicate on it), a
    new attempt signed at a new time, due at once. A delivery waiting for
    its next retry is brought forward; one not attempted yet is answered as
    it is.

    Args:
        webhook_id (UUID):
        delivery_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WebhookDelivery
     """


    return (await asyncio_detailed(
        webhook_id=webhook_id,
delivery_id=delivery_id,
client=client,

    )).parsed
