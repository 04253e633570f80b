from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.patch_room_request import PatchRoomRequest
from ...models.problem import Problem
from ...models.room_view import RoomView
from typing import cast
from uuid import UUID



def _get_kwargs(
    room_id: UUID,
    *,
    body: PatchRoomRequest,
    tenant_id: UUID,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    params: dict[str, Any] = {}

    json_tenant_id = str(tenant_id)
    params["tenantId"] = json_tenant_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/rooms/{room_id}".format(room_id=quote(str(room_id), safe=""),),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | RoomView:
    if response.status_code == 200:
        response_200 = RoomView.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | RoomView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    room_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PatchRoomRequest,
    tenant_id: UUID,

) -> Response[Problem | RoomView]:
    """ Changes a room; answers its view.

    Args:
        room_id (UUID):
        tenant_id (UUID):
        body (PatchRoomRequest): The body of `PATCH /v1/rooms/{roomId}`: every field optional; a
            field
            left out keeps its value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoomView]
     """


    kwargs = _get_kwargs(
        room_id=room_id,
body=body,
tenant_id=tenant_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    room_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PatchRoomRequest,
    tenant_id: UUID,

) -> Problem | RoomView | None:
    """ Changes a room; answers its view.

    Args:
        room_id (UUID):
        tenant_id (UUID):
        body (PatchRoomRequest): The body of `PATCH /v1/rooms/{roomId}`: every field optional; a
            field
            left out keeps its value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoomView
     """


    return sync_detailed(
        room_id=room_id,
client=client,
body=body,
tenant_id=tenant_id,

    ).parsed

async def asyncio_detailed(
    room_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PatchRoomRequest,
    tenant_id: UUID,

) -> Response[Problem | RoomView]:
    """ Changes a room; answers its view.

    Args:
        room_id (UUID):
        tenant_id (UUID):
        body (PatchRoomRequest): The body of `PATCH /v1/rooms/{roomId}`: every field optional; a
            field
            left out keeps its value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoomView]
     """


    kwargs = _get_kwargs(
        room_id=room_id,
body=body,
tenant_id=tenant_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    room_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PatchRoomRequest,
    tenant_id: UUID,

) -> Problem | RoomView | None:
    """ Changes a room; answers its view.

    Args:
        room_id (UUID):
        tenant_id (UUID):
        body (PatchRoomRequest): The body of `PATCH /v1/rooms/{roomId}`: every field optional; a
            field
            left out keeps its value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoomView
     """


    return (await asyncio_detailed(
        room_id=room_id,
client=client,
body=body,
tenant_id=tenant_id,

    )).parsed
