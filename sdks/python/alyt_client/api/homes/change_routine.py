from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.change_routine_body import ChangeRoutineBody
from ...models.problem import Problem
from ...models.routine import Routine
from typing import cast
from uuid import UUID



def _get_kwargs(
    routine_id: UUID,
    *,
    body: ChangeRoutineBody,
    tenant_id: UUID,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    params: dict[str, Any] = {}

    json_tenant_id = str(tenant_id)
    params["tenantId"] = json_tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/routines/{routine_id}".format(routine_id=quote(str(routine_id), safe=""),),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Routine:
    if response.status_code == 200:
        response_200 = Routine.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Routine]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    routine_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ChangeRoutineBody,
    tenant_id: UUID,

) -> Response[Problem | Routine]:
    """ Changes a routine: any of name, enabled, triggers and do; the result is
    checked whole.

    Args:
        routine_id (UUID):
        tenant_id (UUID):
        body (ChangeRoutineBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Routine]
     """


    kwargs = _get_kwargs(
        routine_id=routine_id,
body=body,
tenant_id=tenant_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    routine_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ChangeRoutineBody,
    tenant_id: UUID,

) -> Problem | Routine | None:
    """ Changes a routine: any of name, enabled, triggers and do; the result is
    checked whole.

    Args:
        routine_id (UUID):
        tenant_id (UUID):
        body (ChangeRoutineBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Routine
     """


    return sync_detailed(
        routine_id=routine_id,
client=client,
body=body,
tenant_id=tenant_id,

    ).parsed

async def asyncio_detailed(
    routine_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ChangeRoutineBody,
    tenant_id: UUID,

) -> Response[Problem | Routine]:
    """ Changes a routine: any of name, enabled, triggers and do; the result is
    checked whole.

    Args:
        routine_id (UUID):
        tenant_id (UUID):
        body (ChangeRoutineBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Routine]
     """


    kwargs = _get_kwargs(
        routine_id=routine_id,
body=body,
tenant_id=tenant_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    routine_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ChangeRoutineBody,
    tenant_id: UUID,

) -> Problem | Routine | None:
    """ Changes a routine: any of name, enabled, triggers and do; the result is
    checked whole.

    Args:
        routine_id (UUID):
        tenant_id (UUID):
        body (ChangeRoutineBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Routine
     """


    return (await asyncio_detailed(
        routine_id=routine_id,
client=client,
body=body,
tenant_id=tenant_id,

    )).parsed
