from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.create_webhook_request import CreateWebhookRequest
from ...models.endpoint_with_secret import EndpointWithSecret
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: CreateWebhookRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/webhooks",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EndpointWithSecret | Problem:
    if response.status_code == 201:
        response_201 = EndpointWithSecret.from_dict(response.json())



        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())



        return response_403

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EndpointWithSecret | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWebhookRequest,

) -> Response[EndpointWithSecret | Problem]:
    """ Registers an endpoint and answers its signing secret, shown this once.
    A webhook (`url`) gets signed POSTs; an EventBridge destination (kind
    `eventbridge`) gets each event put on the developer's bus with
    `PutEvents`: the envelope as `detail`, the kind as `detail-type`,
    `source` `alyt` (or the partner event source name), with the same
    at-least-once and per-home order, retries, auto-disable and delivery log
    as a webhook. The bus's policy must let the platform's account put
    events (see the developer docs on EventBridge destinations).

    Args:
        body (CreateWebhookRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointWithSecret | Problem]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: CreateWebhookRequest,

) -> EndpointWithSecret | Problem | None:
    """ Registers an endpoint and answers its signing secret, shown this once.
    A webhook (`url`) gets signed POSTs; an EventBridge destination (kind
    `eventbridge`) gets each event put on the developer's bus with
    `PutEvents`: the envelope as `detail`, the kind as `detail-type`,
    `source` `alyt` (or the partner event source name), with the same
    at-least-once and per-home order, retries, auto-disable and delivery log
    as a webhook. The bus's policy must let the platform's account put
    events (see the developer docs on EventBridge destinations).

    Args:
        body (CreateWebhookRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointWithSecret | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWebhookRequest,

) -> Response[EndpointWithSecret | Problem]:
    """ Registers an endpoint and answers its signing secret, shown this once.
    A webhook (`url`) gets signed POSTs; an EventBridge destination (kind
    `eventbridge`) gets each event put on the developer's bus with
    `PutEvents`: the envelope as `detail`, the kind as `detail-type`,
    `source` `alyt` (or the partner event source name), with the same
    at-least-once and per-home order, retries, auto-disable and delivery log
    as a webhook. The bus's policy must let the platform's account put
    events (see the developer docs on EventBridge destinations).

    Args:
        body (CreateWebhookRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointWithSecret | Problem]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateWebhookRequest,

) -> EndpointWithSecret | Problem | None:
    """ Registers an endpoint and answers its signing secret, shown this once.
    A webhook (`url`) gets signed POSTs; an EventBridge destination (kind
    `eventbridge`) gets each event put on the developer's bus with
    `PutEvents`: the envelope as `detail`, the kind as `detail-type`,
    `source` `alyt` (or the partner event source name), with the same
    at-least-once and per-home order, retries, auto-disable and delivery log
    as a webhook. The bus's policy must let the platform's account put
    events (see the developer docs on EventBridge destinations).

    Args:
        body (CreateWebhookRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointWithSecret | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
