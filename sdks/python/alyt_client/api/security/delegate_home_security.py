from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.delegation_body import DelegationBody
from ...models.delegation_view import DelegationView
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    property_id: UUID,
    token_id: str,
    *,
    body: DelegationBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/home-security/{property_id}/delegations/{token_id}".format(property_id=quote(str(property_id), safe=""),token_id=quote(str(token_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DelegationView | Problem:
    if response.status_code == 200:
        response_200 = DelegationView.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DelegationView | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    property_id: UUID,
    token_id: str,
    *,
    client: AuthenticatedClient,
    body: DelegationBody,

) -> Response[DelegationView | Problem]:
    """ Gives one of the caller's TVs control of the home's security.

    Args:
        property_id (UUID):
        token_id (str):
        body (DelegationBody): A delegation.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DelegationView | Problem]
     """


    kwargs = _get_kwargs(
        property_id=property_id,
token_id=token_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    property_id: UUID,
    token_id: str,
    *,
    client: AuthenticatedClient,
    body: DelegationBody,

) -> DelegationView | Problem | None:
    """ Gives one of the caller's TVs control of the home's security.

    Args:
        property_id (UUID):
        token_id (str):
        body (DelegationBody): A delegation.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DelegationView | Problem
     """


    return sync_detailed(
        property_id=property_id,
token_id=token_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    property_id: UUID,
    token_id: str,
    *,
    client: AuthenticatedClient,
    body: DelegationBody,

) -> Response[DelegationView | Problem]:
    """ Gives one of the caller's TVs control of the home's security.

    Args:
        property_id (UUID):
        token_id (str):
        body (DelegationBody): A delegation.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DelegationView | Problem]
     """


    kwargs = _get_kwargs(
        property_id=property_id,
token_id=token_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    property_id: UUID,
    token_id: str,
    *,
    client: AuthenticatedClient,
    body: DelegationBody,

) -> DelegationView | Problem | None:
    """ Gives one of the caller's TVs control of the home's security.

    Args:
        property_id (UUID):
        token_id (str):
        body (DelegationBody): A delegation.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DelegationView | Problem
     """


    return (await asyncio_detailed(
        property_id=property_id,
token_id=token_id,
client=client,
body=body,

    )).parsed
