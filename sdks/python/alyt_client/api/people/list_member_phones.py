from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.phone_list import PhoneList
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    tenant_id: UUID,
    client_id: UUID,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/tenants/{tenant_id}/clients/{client_id}/members/phones".format(tenant_id=quote(str(tenant_id), safe=""),client_id=quote(str(client_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PhoneList | Problem:
    if response.status_code == 200:
        response_200 = PhoneList.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[PhoneList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    tenant_id: UUID,
    client_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[PhoneList | Problem]:
    """ The phones the household's home network watches.

    Args:
        tenant_id (UUID):
        client_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PhoneList | Problem]
     """


    kwargs = _get_kwargs(
        tenant_id=tenant_id,
client_id=client_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    tenant_id: UUID,
    client_id: UUID,
    *,
    client: AuthenticatedClient,

) -> PhoneList | Problem | None:
    """ The phones the household's home network watches.

    Args:
        tenant_id (UUID):
        client_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PhoneList | Problem
     """


    return sync_detailed(
        tenant_id=tenant_id,
client_id=client_id,
client=client,

    ).parsed

async def asyncio_detailed(
    tenant_id: UUID,
    client_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[PhoneList | Problem]:
    """ The phones the household's home network watches.

    Args:
        tenant_id (UUID):
        client_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PhoneList | Problem]
     """


    kwargs = _get_kwargs(
        tenant_id=tenant_id,
client_id=client_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    tenant_id: UUID,
    client_id: UUID,
    *,
    client: AuthenticatedClient,

) -> PhoneList | Problem | None:
    """ The phones the household's home network watches.

    Args:
        tenant_id (UUID):
        client_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PhoneList | Problem
     """


    return (await asyncio_detailed(
        tenant_id=tenant_id,
client_id=client_id,
client=client,

    )).parsed
