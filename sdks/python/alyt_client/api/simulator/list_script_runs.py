from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.list_response_script_run import ListResponseScriptRun
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    *,
    tenant_id: UUID,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_tenant_id = str(tenant_id)
    params["tenantId"] = json_tenant_id

    params["limit"] = limit

    params["cursor"] = cursor


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/developers/simulator/runs",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ListResponseScriptRun | Problem:
    if response.status_code == 200:
        response_200 = ListResponseScriptRun.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ListResponseScriptRun | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> Response[ListResponseScriptRun | Problem]:
    """ The sandbox's script runs, oldest first.

    Args:
        tenant_id (UUID):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListResponseScriptRun | Problem]
     """


    kwargs = _get_kwargs(
        tenant_id=tenant_id,
limit=limit,
cursor=cursor,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> ListResponseScriptRun | Problem | None:
    """ The sandbox's script runs, oldest first.

    Args:
        tenant_id (UUID):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListResponseScriptRun | Problem
     """


    return sync_detailed(
        client=client,
tenant_id=tenant_id,
limit=limit,
cursor=cursor,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> Response[ListResponseScriptRun | Problem]:
    """ The sandbox's script runs, oldest first.

    Args:
        tenant_id (UUID):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListResponseScriptRun | Problem]
     """


    kwargs = _get_kwargs(
        tenant_id=tenant_id,
limit=limit,
cursor=cursor,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,

) -> ListResponseScriptRun | Problem | None:
    """ The sandbox's script runs, oldest first.

    Args:
        tenant_id (UUID):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListResponseScriptRun | Problem
     """


    return (await asyncio_detailed(
        client=client,
tenant_id=tenant_id,
limit=limit,
cursor=cursor,

    )).parsed
