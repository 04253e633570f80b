from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.rotate_secret_request import RotateSecretRequest
from ...models.rotated_secret import RotatedSecret
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    webhook_id: UUID,
    *,
    body: None | RotateSecretRequest | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/webhooks/{webhook_id}/rotate-secret".format(webhook_id=quote(str(webhook_id), safe=""),),
    }

    
    if isinstance(body, RotateSecretRequest):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | RotatedSecret:
    if response.status_code == 200:
        response_200 = RotatedSecret.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | RotatedSecret]:
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
    body: None | RotateSecretRequest | Unset = UNSET,

) -> Response[Problem | RotatedSecret]:
    """ Gives an endpoint a new signing secret, shown once. Until
    `endpoint.secretGraceEndsAt` every delivery carries two `v1`
    signatures, with the new secret and the replaced one, so the receiver
    can switch to the new secret at any time within the grace period;
    afterwards only the new one signs. Rotating again during a grace period
    ends it.

    Args:
        webhook_id (UUID):
        body (None | RotateSecretRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RotatedSecret]
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
    body: None | RotateSecretRequest | Unset = UNSET,

) -> Problem | RotatedSecret | None:
    """ Gives an endpoint a new signing secret, shown once. Until
    `endpoint.secretGraceEndsAt` every delivery carries two `v1`
    signatures, with the new secret and the replaced one, so the receiver
    can switch to the new secret at any time within the grace period;
    afterwards only the new one signs. Rotating again during a grace period
    ends it.

    Args:
        webhook_id (UUID):
        body (None | RotateSecretRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RotatedSecret
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
    body: None | RotateSecretRequest | Unset = UNSET,

) -> Response[Problem | RotatedSecret]:
    """ Gives an endpoint a new signing secret, shown once. Until
    `endpoint.secretGraceEndsAt` every delivery carries two `v1`
    signatures, with the new secret and the replaced one, so the receiver
    can switch to the new secret at any time within the grace period;
    afterwards only the new one signs. Rotating again during a grace period
    ends it.

    Args:
        webhook_id (UUID):
        body (None | RotateSecretRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RotatedSecret]
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
    body: None | RotateSecretRequest | Unset = UNSET,

) -> Problem | RotatedSecret | None:
    """ Gives an endpoint a new signing secret, shown once. Until
    `endpoint.secretGraceEndsAt` every delivery carries two `v1`
    signatures, with the new secret and the replaced one, so the receiver
    can switch to the new secret at any time within the grace period;
    afterwards only the new one signs. Rotating again during a grace period
    ends it.

    Args:
        webhook_id (UUID):
        body (None | RotateSecretRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RotatedSecret
     """


    return (await asyncio_detailed(
        webhook_id=webhook_id,
client=client,
body=body,

    )).parsed
