from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.integration import Integration
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    integration_id: UUID,
    *,
    tenant_id: UUID,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_tenant_id = str(tenant_id)
    params["tenantId"] = json_tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/integrations/{integration_id}".format(integration_id=quote(str(integration_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Integration | Problem:
    if response.status_code == 200:
        response_200 = Integration.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Integration | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    integration_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,

) -> Response[Integration | Problem]:
    """ One integration.

    Args:
        integration_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Integration | Problem]
     """


    kwargs = _get_kwargs(
        integration_id=integration_id,
tenant_id=tenant_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    integration_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,

) -> Integration | Problem | None:
    """ One integration.

    Args:
        integration_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Integration | Problem
     """


    return sync_detailed(
        integration_id=integration_id,
client=client,
tenant_id=tenant_id,

    ).parsed

async def asyncio_detailed(
    integration_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,

) -> Response[Integration | Problem]:
    """ One integration.

    Args:
        integration_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Integration | Problem]
     """


    kwargs = _get_kwargs(
        integration_id=integration_id,
tenant_id=tenant_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    integration_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,

) -> Integration | Problem | None:
    """ One integration.

    Args:
        integration_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Integration | Problem
     """


    return (await asyncio_detailed(
        integration_id=integration_id,
client=client,
tenant_id=tenant_id,

    )).parsed
