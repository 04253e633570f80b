from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.registered_device import RegisteredDevice
from ...models.replace_unit_request import ReplaceUnitRequest
from typing import cast
from uuid import UUID



def _get_kwargs(
    device_id: UUID,
    *,
    body: ReplaceUnitRequest,
    tenant_id: UUID,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    params: dict[str, Any] = {}

    json_tenant_id = str(tenant_id)
    params["tenantId"] = json_tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/devices/{device_id}/units".format(device_id=quote(str(device_id), safe=""),),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | RegisteredDevice:
    if response.status_code == 201:
        response_201 = RegisteredDevice.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | RegisteredDevice]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    device_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ReplaceUnitRequest,
    tenant_id: UUID,

) -> Response[Problem | RegisteredDevice]:
    """ A new board (unit) for an existing device: a warranty replacement.

    Args:
        device_id (UUID):
        tenant_id (UUID):
        body (ReplaceUnitRequest): The body of `POST /v1/devices/{deviceId}/units`: the new board.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RegisteredDevice]
     """


    kwargs = _get_kwargs(
        device_id=device_id,
body=body,
tenant_id=tenant_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    device_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ReplaceUnitRequest,
    tenant_id: UUID,

) -> Problem | RegisteredDevice | None:
    """ A new board (unit) for an existing device: a warranty replacement.

    Args:
        device_id (UUID):
        tenant_id (UUID):
        body (ReplaceUnitRequest): The body of `POST /v1/devices/{deviceId}/units`: the new board.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RegisteredDevice
     """


    return sync_detailed(
        device_id=device_id,
client=client,
body=body,
tenant_id=tenant_id,

    ).parsed

async def asyncio_detailed(
    device_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ReplaceUnitRequest,
    tenant_id: UUID,

) -> Response[Problem | RegisteredDevice]:
    """ A new board (unit) for an existing device: a warranty replacement.

    Args:
        device_id (UUID):
        tenant_id (UUID):
        body (ReplaceUnitRequest): The body of `POST /v1/devices/{deviceId}/units`: the new board.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RegisteredDevice]
     """


    kwargs = _get_kwargs(
        device_id=device_id,
body=body,
tenant_id=tenant_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    device_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ReplaceUnitRequest,
    tenant_id: UUID,

) -> Problem | RegisteredDevice | None:
    """ A new board (unit) for an existing device: a warranty replacement.

    Args:
        device_id (UUID):
        tenant_id (UUID):
        body (ReplaceUnitRequest): The body of `POST /v1/devices/{deviceId}/units`: the new board.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RegisteredDevice
     """


    return (await asyncio_detailed(
        device_id=device_id,
client=client,
body=body,
tenant_id=tenant_id,

    )).parsed
