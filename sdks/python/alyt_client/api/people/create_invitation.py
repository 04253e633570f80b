from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.create_invitation_request import CreateInvitationRequest
from ...models.invitation_result import InvitationResult
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    tenant_id: UUID,
    client_id: UUID,
    *,
    body: CreateInvitationRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/tenants/{tenant_id}/clients/{client_id}/invitations".format(tenant_id=quote(str(tenant_id), safe=""),client_id=quote(str(client_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> InvitationResult | Problem:
    if response.status_code == 201:
        response_201 = InvitationResult.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[InvitationResult | Problem]:
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
    body: CreateInvitationRequest,

) -> Response[InvitationResult | Problem]:
    """ Invites a person to the household by address.

    Args:
        tenant_id (UUID):
        client_id (UUID):
        body (CreateInvitationRequest): A new invitation.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[InvitationResult | Problem]
     """


    kwargs = _get_kwargs(
        tenant_id=tenant_id,
client_id=client_id,
body=body,

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
    body: CreateInvitationRequest,

) -> InvitationResult | Problem | None:
    """ Invites a person to the household by address.

    Args:
        tenant_id (UUID):
        client_id (UUID):
        body (CreateInvitationRequest): A new invitation.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        InvitationResult | Problem
     """


    return sync_detailed(
        tenant_id=tenant_id,
client_id=client_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    tenant_id: UUID,
    client_id: UUID,
    *,
    client: AuthenticatedClient,
    body: CreateInvitationRequest,

) -> Response[InvitationResult | Problem]:
    """ Invites a person to the household by address.

    Args:
        tenant_id (UUID):
        client_id (UUID):
        body (CreateInvitationRequest): A new invitation.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[InvitationResult | Problem]
     """


    kwargs = _get_kwargs(
        tenant_id=tenant_id,
client_id=client_id,
body=body,

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
    body: CreateInvitationRequest,

) -> InvitationResult | Problem | None:
    """ Invites a person to the household by address.

    Args:
        tenant_id (UUID):
        client_id (UUID):
        body (CreateInvitationRequest): A new invitation.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        InvitationResult | Problem
     """


    return (await asyncio_detailed(
        tenant_id=tenant_id,
client_id=client_id,
client=client,
body=body,

    )).parsed
