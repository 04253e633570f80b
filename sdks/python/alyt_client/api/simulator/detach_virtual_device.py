from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.detached_virtual_device import DetachedVirtualDevice
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    device_id: UUID,
    *,
    tenant_id: UUID,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_tenant_id = str(tenant_id)
    params["tenantId"] = json_tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/simulator/devices/{device_id}/detach".format(device_id=quote(str(device_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DetachedVirtualDevice | Problem:
    if response.status_code == 200:
        response_200 = DetachedVirtualDevice.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DetachedVirtualDevice | Problem]:
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
    tenant_id: UUID,

) -> Response[DetachedVirtualDevice | Problem]:
    """ Detaches a virtual device from the simulator so a client of yours
    speaks for it: the simulator lets go of its session (no last will), and
    the device gets a credential of its own in place of the simulator's,
    shown once in the answer with how to connect. Connect with it (the
    client id is the device id), publish as the device, receive its
    commands. `POST …/attach` gives it back.

    Args:
        device_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DetachedVirtualDevice | Problem]
     """


    kwargs = _get_kwargs(
        device_id=device_id,
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
    tenant_id: UUID,

) -> DetachedVirtualDevice | Problem | None:
    """ Detaches a virtual device from the simulator so a client of yours
    speaks for it: the simulator lets go of its session (no last will), and
    the device gets a credential of its own in place of the simulator's,
    shown once in the answer with how to connect. Connect with it (the
    client id is the device id), publish as the device, receive its
    commands. `POST …/attach` gives it back.

    Args:
        device_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DetachedVirtualDevice | Problem
     """


    return sync_detailed(
        device_id=device_id,
client=client,
tenant_id=tenant_id,

    ).parsed

async def asyncio_detailed(
    device_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,

) -> Response[DetachedVirtualDevice | Problem]:
    """ Detaches a virtual device from the simulator so a client of yours
    speaks for it: the simulator lets go of its session (no last will), and
    the device gets a credential of its own in place of the simulator's,
    shown once in the answer with how to connect. Connect with it (the
    client id is the device id), publish as the device, receive its
    commands. `POST …/attach` gives it back.

    Args:
        device_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DetachedVirtualDevice | Problem]
     """


    kwargs = _get_kwargs(
        device_id=device_id,
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
    tenant_id: UUID,

) -> DetachedVirtualDevice | Problem | None:
    """ Detaches a virtual device from the simulator so a client of yours
    speaks for it: the simulator lets go of its session (no last will), and
    the device gets a credential of its own in place of the simulator's,
    shown once in the answer with how to connect. Connect with it (the
    client id is the device id), publish as the device, receive its
    commands. `POST …/attach` gives it back.

    Args:
        device_id (UUID):
        tenant_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DetachedVirtualDevice | Problem
     """


    return (await asyncio_detailed(
        device_id=device_id,
client=client,
tenant_id=tenant_id,

    )).parsed
