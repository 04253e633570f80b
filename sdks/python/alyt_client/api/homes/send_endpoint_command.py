from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.device_command import DeviceCommand
from ...models.endpoint_command_result import EndpointCommandResult
from ...models.press_command import PressCommand
from ...models.problem import Problem
from ...models.set_command import SetCommand
from typing import cast
from uuid import UUID



def _get_kwargs(
    endpoint_id: UUID,
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
        "url": "/v1/endpoints/{endpoint_id}/commands".format(endpoint_id=quote(str(endpoint_id), safe=""),),
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



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EndpointCommandResult | Problem:
    if response.status_code == 200:
        response_200 = EndpointCommandResult.from_dict(response.json())



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

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    if response.status_code == 502:
        response_502 = Problem.from_dict(response.json())



        return response_502

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EndpointCommandResult | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
    body: DeviceCommand | PressCommand | SetCommand,
    tenant_id: UUID,

) -> Response[EndpointCommandResult | Problem]:
    """ Sends a command to an endpoint through its connector.

    Args:
        endpoint_id (UUID):
        tenant_id (UUID):
        body (DeviceCommand | PressCommand | SetCommand): A command: the thing envelope ('set'),
            'press', or the flat form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointCommandResult | Problem]
     """


    kwargs = _get_kwargs(
        endpoint_id=endpoint_id,
body=body,
tenant_id=tenant_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
    body: DeviceCommand | PressCommand | SetCommand,
    tenant_id: UUID,

) -> EndpointCommandResult | Problem | None:
    """ Sends a command to an endpoint through its connector.

    Args:
        endpoint_id (UUID):
        tenant_id (UUID):
        body (DeviceCommand | PressCommand | SetCommand): A command: the thing envelope ('set'),
            'press', or the flat form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointCommandResult | Problem
     """


    return sync_detailed(
        endpoint_id=endpoint_id,
client=client,
body=body,
tenant_id=tenant_id,

    ).parsed

async def asyncio_detailed(
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
    body: DeviceCommand | PressCommand | SetCommand,
    tenant_id: UUID,

) -> Response[EndpointCommandResult | Problem]:
    """ Sends a command to an endpoint through its connector.

    Args:
        endpoint_id (UUID):
        tenant_id (UUID):
        body (DeviceCommand | PressCommand | SetCommand): A command: the thing envelope ('set'),
            'press', or the flat form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointCommandResult | Problem]
     """


    kwargs = _get_kwargs(
        endpoint_id=endpoint_id,
body=body,
tenant_id=tenant_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
    body: DeviceCommand | PressCommand | SetCommand,
    tenant_id: UUID,

) -> EndpointCommandResult | Problem | None:
    """ Sends a command to an endpoint through its connector.

    Args:
        endpoint_id (UUID):
        tenant_id (UUID):
        body (DeviceCommand | PressCommand | SetCommand): A command: the thing envelope ('set'),
            'press', or the flat form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointCommandResult | Problem
     """


    return (await asyncio_detailed(
        endpoint_id=endpoint_id,
client=client,
body=body,
tenant_id=tenant_id,

    )).parsed
