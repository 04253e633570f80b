from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.script_run import ScriptRun
from typing import cast
from uuid import UUID



def _get_kwargs(
    run_id: UUID,
    *,
    tenant_id: UUID,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_tenant_id = str(tenant_id)
    params["tenantId"] = json_tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/developers/simulator/runs/{run_id}".format(run_id=quote(str(run_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | ScriptRun:
    if response.status_code == 200:
        response_200 = ScriptRun.from_dict(response.json())



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

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | ScriptRun]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,

) -> Response[Problem | ScriptRun]:
    """ One run, with its progress.

    Args:
        run_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ScriptRun]
     """


    kwargs = _get_kwargs(
        run_id=run_id,
tenant_id=tenant_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,

) -> Problem | ScriptRun | None:
    """ One run, with its progress.

    Args:
        run_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ScriptRun
     """


    return sync_detailed(
        run_id=run_id,
client=client,
tenant_id=tenant_id,

    ).parsed

async def asyncio_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,

) -> Response[Problem | ScriptRun]:
    """ One run, with its progress.

    Args:
        run_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ScriptRun]
     """


    kwargs = _get_kwargs(
        run_id=run_id,
tenant_id=tenant_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,

) -> Problem | ScriptRun | None:
    """ One run, with its progress.

    Args:
        run_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ScriptRun
     """


    return (await asyncio_detailed(
        run_id=run_id,
client=client,
tenant_id=tenant_id,

    )).parsed
