from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.developer import Developer
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    developer_id: UUID,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/admin/developers/{developer_id}/verify".format(developer_id=quote(str(developer_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Developer | Problem:
    if response.status_code == 200:
        response_200 = Developer.from_dict(response.json())



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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Developer | Problem]:
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

) -> Response[Developer | Problem]:
    """ Verifies a developer whose address was not confirmed (platform OWNER or
    STAFF): PENDING_EMAIL becomes ACTIVE and the sandbox is provisioned exactly
    as the verification link does (the same transaction, spending a one-time
    token made for this request). An ACTIVE developer is answered as it is
    (provisioning its sandbox if it has none); a SUSPENDED one is a 409, since
    verifying does not lift a suspension.

    Args:
        developer_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Developer | Problem]
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

) -> Developer | Problem | None:
    """ Verifies a developer whose address was not confirmed (platform OWNER or
    STAFF): PENDING_EMAIL becomes ACTIVE and the sandbox is provisioned exactly
    as the verification link does (the same transaction, spending a one-time
    token made for this request). An ACTIVE developer is answered as it is
    (provisioning its sandbox if it has none); a SUSPENDED one is a 409, since
    verifying does not lift a suspension.

    Args:
        developer_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Developer | Problem
     """


    return sync_detailed(
        developer_id=developer_id,
client=client,

    ).parsed

async def asyncio_detailed(
    developer_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[Developer | Problem]:
    """ Verifies a developer whose address was not confirmed (platform OWNER or
    STAFF): PENDING_EMAIL becomes ACTIVE and the sandbox is provisioned exactly
    as the verification link does (the same transaction, spending a one-time
    token made for this request). An ACTIVE developer is answered as it is
    (provisioning its sandbox if it has none); a SUSPENDED one is a 409, since
    verifying does not lift a suspension.

    Args:
        developer_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Developer | Problem]
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

) -> Developer | Problem | None:
    """ Verifies a developer whose address was not confirmed (platform OWNER or
    STAFF): PENDING_EMAIL becomes ACTIVE and the sandbox is provisioned exactly
    as the verification link does (the same transaction, spending a one-time
    token made for this request). An ACTIVE developer is answered as it is
    (provisioning its sandbox if it has none); a SUSPENDED one is a 409, since
    verifying does not lift a suspension.

    Args:
        developer_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Developer | Problem
     """


    return (await asyncio_detailed(
        developer_id=developer_id,
client=client,

    )).parsed
