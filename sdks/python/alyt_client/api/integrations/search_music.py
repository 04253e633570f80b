from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.music_list import MusicList
from ...models.problem import Problem
from ...models.search_type import SearchType
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    integration_id: UUID,
    *,
    tenant_id: UUID,
    q: str,
    type_: SearchType,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_tenant_id = str(tenant_id)
    params["tenantId"] = json_tenant_id

    params["q"] = q

    json_type_ = type_.value
    params["type"] = json_type_

    params["cursor"] = cursor

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/integrations/{integration_id}/search".format(integration_id=quote(str(integration_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> MusicList | Problem:
    if response.status_code == 200:
        response_200 = MusicList.from_dict(response.json())



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

    if response.status_code == 502:
        response_502 = Problem.from_dict(response.json())



        return response_502

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())



        return response_503

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[MusicList | Problem]:
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
    q: str,
    type_: SearchType,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[MusicList | Problem]:
    """ Searches a streaming-provider account's catalogue. An expired provider
    session is renewed first. The uri of a result is what a music step
    plays; a routine stores the uri, never the query.

    Args:
        integration_id (UUID):
        tenant_id (UUID):
        q (str):
        type_ (SearchType): What a search looks for.
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MusicList | Problem]
     """


    kwargs = _get_kwargs(
        integration_id=integration_id,
tenant_id=tenant_id,
q=q,
type_=type_,
cursor=cursor,
limit=limit,

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
    q: str,
    type_: SearchType,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> MusicList | Problem | None:
    """ Searches a streaming-provider account's catalogue. An expired provider
    session is renewed first. The uri of a result is what a music step
    plays; a routine stores the uri, never the query.

    Args:
        integration_id (UUID):
        tenant_id (UUID):
        q (str):
        type_ (SearchType): What a search looks for.
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MusicList | Problem
     """


    return sync_detailed(
        integration_id=integration_id,
client=client,
tenant_id=tenant_id,
q=q,
type_=type_,
cursor=cursor,
limit=limit,

    ).parsed

async def asyncio_detailed(
    integration_id: UUID,
    *,
    client: AuthenticatedClient,
    tenant_id: UUID,
    q: str,
    type_: SearchType,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[MusicList | Problem]:
    """ Searches a streaming-provider account's catalogue. An expired provider
    session is renewed first. The uri of a result is what a music step
    plays; a routine stores the uri, never the query.

    Args:
        integration_id (UUID):
        tenant_id (UUID):
        q (str):
        type_ (SearchType): What a search looks for.
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MusicList | Problem]
     """


    kwargs = _get_kwargs(
        integration_id=integration_id,
tenant_id=tenant_id,
q=q,
type_=type_,
cursor=cursor,
limit=limit,

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
    q: str,
    type_: SearchType,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> MusicList | Problem | None:
    """ Searches a streaming-provider account's catalogue. An expired provider
    session is renewed first. The uri of a result is what a music step
    plays; a routine stores the uri, never the query.

    Args:
        integration_id (UUID):
        tenant_id (UUID):
        q (str):
        type_ (SearchType): What a search looks for.
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MusicList | Problem
     """


    return (await asyncio_detailed(
        integration_id=integration_id,
client=client,
tenant_id=tenant_id,
q=q,
type_=type_,
cursor=cursor,
limit=limit,

    )).parsed
