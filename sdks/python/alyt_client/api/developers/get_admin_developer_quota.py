from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.quota_response import QuotaResponse
from typing import cast
from uuid import UUID



def _get_kwargs(
    developer_id: UUID,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/developers/admin/developers/{developer_id}/quota".format(developer_id=quote(str(developer_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | QuotaResponse:
    if response.status_code == 200:
        response_200 = QuotaResponse.from_dict(response.json())



        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | QuotaResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    developer_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | QuotaResponse]:
    """ The developer's effective quota of every kind, as `GET /developers/quota`
    answers the developer: each kind's override when staff set one, else the
    platform default (platform OWNER, STAFF or SUPPORT).

    Args:
        developer_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | QuotaResponse]
     """


    kwargs = _get_kwargs(
        developer_id=developer_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    developer_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Problem | QuotaResponse | None:
    """ The developer's effective quota of every kind, as `GET /developers/quota`
    answers the developer: each kind's override when staff set one, else the
    platform default (platform OWNER, STAFF or SUPPORT).

    Args:
        developer_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | QuotaResponse
     """


    return sync_detailed(
        developer_id=developer_id,
client=client,

    ).parsed

async def asyncio_detailed(
    developer_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[Problem | QuotaResponse]:
    """ The developer's effective quota of every kind, as `GET /developers/quota`
    answers the developer: each kind's override when staff set one, else the
    platform default (platform OWNER, STAFF or SUPPORT).

    Args:
        developer_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | QuotaResponse]
     """


    kwargs = _get_kwargs(
        developer_id=developer_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    developer_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Problem | QuotaResponse | None:
    """ The developer's effective quota of every kind, as `GET /developers/quota`
    answers the developer: each kind's override when staff set one, else the
    platform default (platform OWNER, STAFF or SUPPORT).

    Args:
        developer_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | QuotaResponse
     """


    return (await asyncio_detailed(
        developer_id=developer_id,
client=client,

    )).parsed
