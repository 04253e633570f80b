from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.change_member_request import ChangeMemberRequest
from ...models.member import Member
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    tenant_id: UUID,
    client_id: UUID,
    user_id: UUID,
    *,
    body: ChangeMemberRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/tenants/{tenant_id}/clients/{client_id}/members/{user_id}".format(tenant_id=quote(str(tenant_id), safe=""),client_id=quote(str(client_id), safe=""),user_id=quote(str(user_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Member | Problem:
    if response.status_code == 200:
        response_200 = Member.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Member | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    tenant_id: UUID,
    client_id: UUID,
    user_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ChangeMemberRequest,

) -> Response[Member | Problem]:
    """ Changes a member's level, home, stay or network condition.

    Args:
        tenant_id (UUID):
        client_id (UUID):
        user_id (UUID):
        body (ChangeMemberRequest): What changes; absent fields stay as they are.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Member | Problem]
     """


    kwargs = _get_kwargs(
        tenant_id=tenant_id,
client_id=client_id,
user_id=user_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    tenant_id: UUID,
    client_id: UUID,
    user_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ChangeMemberRequest,

) -> Member | Problem | None:
    """ Changes a member's level, home, stay or network condition.

    Args:
        tenant_id (UUID):
        client_id (UUID):
        user_id (UUID):
        body (ChangeMemberRequest): What changes; absent fields stay as they are.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Member | Problem
     """


    return sync_detailed(
        tenant_id=tenant_id,
client_id=client_id,
user_id=user_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    tenant_id: UUID,
    client_id: UUID,
    user_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ChangeMemberRequest,

) -> Response[Member | Problem]:
    """ Changes a member's level, home, stay or network condition.

    Args:
        tenant_id (UUID):
        client_id (UUID):
        user_id (UUID):
        body (ChangeMemberRequest): What changes; absent fields stay as they are.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Member | Problem]
     """


    kwargs = _get_kwargs(
        tenant_id=tenant_id,
client_id=client_id,
user_id=user_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    tenant_id: UUID,
    client_id: UUID,
    user_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ChangeMemberRequest,

) -> Member | Problem | None:
    """ Changes a member's level, home, stay or network condition.

    Args:
        tenant_id (UUID):
        client_id (UUID):
        user_id (UUID):
        body (ChangeMemberRequest): What changes; absent fields stay as they are.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Member | Problem
     """


    return (await asyncio_detailed(
        tenant_id=tenant_id,
client_id=client_id,
user_id=user_id,
client=client,
body=body,

    )).parsed
