from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    key_id: UUID,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/developers/keys/{key_id}".format(key_id=quote(str(key_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Problem:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    key_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[Any | Problem]:
    """ Revokes the key: its secret and the app tokens issued for it stop working
    at once, and its webhook endpoints are disabled (`key_revoked`): nothing
    more is sent for them, deliveries already queued included. The key stays
    listed with `revokedAt`. Revoking a revoked key is a no-op. (Revocation
    is the DELETE of the key.) Session only.

    Args:
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
     """


    kwargs = _get_kwargs(
        key_id=key_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    key_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Any | Problem | None:
    """ Revokes the key: its secret and the app tokens issued for it stop working
    at once, and its webhook endpoints are disabled (`key_revoked`): nothing
    more is sent for them, deliveries already queued included. The key stays
    listed with `revokedAt`. Revoking a revoked key is a no-op. (Revocation
    is the DELETE of the key.) Session only.

    Args:
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
     """


    return sync_detailed(
        key_id=key_id,
client=client,

    ).parsed

async def asyncio_detailed(
    key_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[Any | Problem]:
    """ Revokes the key: its secret and the app tokens issued for it stop working
    at once, and its webhook endpoints are disabled (`key_revoked`): nothing
    more is sent for them, deliveries already queued included. The key stays
    listed with `revokedAt`. Revoking a revoked key is a no-op. (Revocation
    is the DELETE of the key.) Session only.

    Args:
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
     """


    kwargs = _get_kwargs(
        key_id=key_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    key_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Any | Problem | None:
    """ Revokes the key: its secret and the app tokens issued for it stop working
    at once, and its webhook endpoints are disabled (`key_revoked`): nothing
    more is sent for them, deliveries already queued included. The key stays
    listed with `revokedAt`. Revoking a revoked key is a no-op. (Revocation
    is the DELETE of the key.) Session only.

    Args:
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
     """


    return (await asyncio_detailed(
        key_id=key_id,
client=client,

    )).parsed
