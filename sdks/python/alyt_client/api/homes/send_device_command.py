from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.command_row import CommandRow
from ...models.device_command import DeviceCommand
from ...models.press_command import PressCommand
from ...models.problem import Problem
from ...models.set_command import SetCommand
from typing import cast
from uuid import UUID



def _get_kwargs(
    device_id: UUID,
    *,
    body: DeviceCommand | PressCommand | SetCommand,
    tenant_id: UUID,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    params: dict[str, Any] = {}

    json_tenant_id = str(tenant_id)
    params["tenantId"] = json_tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/devices/{device_id}/commands".format(device_id=quote(str(device_id), safe=""),),
        "params": params,
    }

    
    if isinstance(body, SetCommand):
        _kwargs["json"] = body.to_dict()
    elif isinstance(body, PressCommand):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()


    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> CommandRow | Problem:
    if response.status_code == 202:
        response_202 = CommandRow.from_dict(response.json())



        return response_202

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[CommandRow | Problem]:
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
    body: DeviceCommand | PressCommand | SetCommand,
    tenant_id: UUID,

) -> Response[CommandRow | Problem]:
    """ Sends a command to a device: validated, queued, published at once.

    Args:
        device_id (UUID):
        tenant_id (UUID):
        body (DeviceCommand | PressCommand | SetCommand): A command: the thing envelope ('set'),
            'press', or the flat form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CommandRow | Problem]
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
    body: DeviceCommand | PressCommand | SetCommand,
    tenant_id: UUID,

) -> CommandRow | Problem | None:
    """ Sends a command to a device: validated, queued, published at once.

    Args:
        device_id (UUID):
        tenant_id (UUID):
        body (DeviceCommand | PressCommand | SetCommand): A command: the thing envelope ('set'),
            'press', or the flat form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CommandRow | Problem
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
    body: DeviceCommand | PressCommand | SetCommand,
    tenant_id: UUID,

) -> Response[CommandRow | Problem]:
    """ Sends a command to a device: validated, queued, published at once.

    Args:
        device_id (UUID):
        tenant_id (UUID):
        body (DeviceCommand | PressCommand | SetCommand): A command: the thing envelope ('set'),
            'press', or the flat form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CommandRow | Problem]
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
    body: DeviceCommand | PressCommand | SetCommand,
    tenant_id: UUID,

) -> CommandRow | Problem | None:
    """ Sends a command to a device: validated, queued, published at once.

    Args:
        device_id (UUID):
        tenant_id (UUID):
        body (DeviceCommand | PressCommand | SetCommand): A command: the thing envelope ('set'),
            'press', or the flat form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CommandRow | Problem
     """


    return (await asyncio_detailed(
        device_id=device_id,
client=client,
body=body,
tenant_id=tenant_id,

    )).parsed
