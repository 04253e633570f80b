from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.update_webhook_request import UpdateWebhookRequest
from ...models.webhook_endpoint import WebhookEndpoint
from typing import cast
from uuid import UUID



def _get_kwargs(
    webhook_id: UUID,
    *,
    body: UpdateWebhookRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/developers/webhooks/{webhook_id}".format(webhook_id=quote(str(webhook_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | WebhookEndpoint:
    if response.status_code == 200:
        response_200 = WebhookEndpoint.from_dict(response.json())



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

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | WebhookEndpoint]:
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
    body: UpdateWebhookRequest,

) -> Response[Problem | WebhookEndpoint]:
    """ Edits an endpoint's URL, event filter or description (any of them). The
    secret, the key and the status stay. Deliveries not yet sent go to the new
    URL; events are matched against the new filter from now on (what was
    queued before stays queued).

    Args:
        webhook_id (UUID):
        body (UpdateWebhookRequest): The body of `PATCH /v1/developers/webhooks/{webhookId}`:
            every field
            optional; a field left out keeps its value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WebhookEndpoint]
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
    body: UpdateWebhookRequest,

) -> Problem | WebhookEndpoint | None:
    """ Edits an endpoint's URL, event filter or description (any of them). The
    secret, the key and the status stay. Deliveries not yet sent go to the new
    URL; events are matched against the new filter from now on (what was
    queued before stays queued).

    Args:
        webhook_id (UUID):
        body (UpdateWebhookRequest): The body of `PATCH /v1/developers/webhooks/{webhookId}`:
            every field
            optional; a field left out keeps its value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WebhookEndpoint
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
    body: UpdateWebhookRequest,

) -> Response[Problem | WebhookEndpoint]:
    """ Edits an endpoint's URL, event filter or description (any of them). The
    secret, the key and the status stay. Deliveries not yet sent go to the new
    URL; events are matched against the new filter from now on (what was
    queued before stays queued).

    Args:
        webhook_id (UUID):
        body (UpdateWebhookRequest): The body of `PATCH /v1/developers/webhooks/{webhookId}`:
            every field
            optional; a field left out keeps its value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WebhookEndpoint]
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
    body: UpdateWebhookRequest,

) -> Problem | WebhookEndpoint | None:
    """ Edits an endpoint's URL, event filter or description (any of them). The
    secret, the key and the status stay. Deliveries not yet sent go to the new
    URL; events are matched against the new filter from now on (what was
    queued before stays queued).

    Args:
        webhook_id (UUID):
        body (UpdateWebhookRequest): The body of `PATCH /v1/developers/webhooks/{webhookId}`:
            every field
            optional; a field left out keeps its value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WebhookEndpoint
     """


    return (await asyncio_detailed(
        webhook_id=webhook_id,
client=client,
body=body,

    )).parsed
