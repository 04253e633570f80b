from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.recover_webhook_request import RecoverWebhookRequest
from ...models.webhook_recovery import WebhookRecovery
from typing import cast
from uuid import UUID



def _get_kwargs(
    webhook_id: UUID,
    *,
    body: RecoverWebhookRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/webhooks/{webhook_id}/recover".format(webhook_id=quote(str(webhook_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | WebhookRecovery:
    if response.status_code == 202:
        response_202 = WebhookRecovery.from_dict(response.json())



        return response_202

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | WebhookRecovery]:
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
    body: RecoverWebhookRequest,

) -> Response[Problem | WebhookRecovery]:
    """ Recovers an endpoint: every event of the range its filter matches (and
    it could have heard: from its creation on, within the 7 days the event
    log keeps) that it did not get is sent again, oldest first, at most 50
    a second and never faster than it answers; what it got is left alone,
    so each missed event arrives once. One recovery runs per endpoint;
    read its progress with `GET …/recovery`. It resumes where it was after
    a restart, waits while the endpoint is disabled, and ends if it is
    removed.

    Args:
        webhook_id (UUID):
        body (RecoverWebhookRequest): The body of `POST
            /v1/developers/webhooks/{webhookId}/recover`: either
            `since`, or `fromEventId` with an optional `toEventId`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WebhookRecovery]
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
    body: RecoverWebhookRequest,

) -> Problem | WebhookRecovery | None:
    """ Recovers an endpoint: every event of the range its filter matches (and
    it could have heard: from its creation on, within the 7 days the event
    log keeps) that it did not get is sent again, oldest first, at most 50
    a second and never faster than it answers; what it got is left alone,
    so each missed event arrives once. One recovery runs per endpoint;
    read its progress with `GET …/recovery`. It resumes where it was after
    a restart, waits while the endpoint is disabled, and ends if it is
    removed.

    Args:
        webhook_id (UUID):
        body (RecoverWebhookRequest): The body of `POST
            /v1/developers/webhooks/{webhookId}/recover`: either
            `since`, or `fromEventId` with an optional `toEventId`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WebhookRecovery
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
    body: RecoverWebhookRequest,

) -> Response[Problem | WebhookRecovery]:
    """ Recovers an endpoint: every event of the range its filter matches (and
    it could have heard: from its creation on, within the 7 days the event
    log keeps) that it did not get is sent again, oldest first, at most 50
    a second and never faster than it answers; what it got is left alone,
    so each missed event arrives once. One recovery runs per endpoint;
    read its progress with `GET …/recovery`. It resumes where it was after
    a restart, waits while the endpoint is disabled, and ends if it is
    removed.

    Args:
        webhook_id (UUID):
        body (RecoverWebhookRequest): The body of `POST
            /v1/developers/webhooks/{webhookId}/recover`: either
            `since`, or `fromEventId` with an optional `toEventId`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WebhookRecovery]
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
    body: RecoverWebhookRequest,

) -> Problem | WebhookRecovery | None:
    """ Recovers an endpoint: every event of the range its filter matches (and
    it could have heard: from its creation on, within the 7 days the event
    log keeps) that it did not get is sent again, oldest first, at most 50
    a second and never faster than it answers; what it got is left alone,
    so each missed event arrives once. One recovery runs per endpoint;
    read its progress with `GET …/recovery`. It resumes where it was after
    a restart, waits while the endpoint is disabled, and ends if it is
    removed.

    Args:
        webhook_id (UUID):
        body (RecoverWebhookRequest): The body of `POST
            /v1/developers/webhooks/{webhookId}/recover`: either
            `since`, or `fromEventId` with an optional `toEventId`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WebhookRecovery
     """


    return (await asyncio_detailed(
        webhook_id=webhook_id,
client=client,
body=body,

    )).parsed
