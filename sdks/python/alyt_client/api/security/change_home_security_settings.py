from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.security_status import SecurityStatus
from ...models.settings_patch import SettingsPatch
from typing import cast
from uuid import UUID



def _get_kwargs(
    property_id: UUID,
    *,
    body: SettingsPatch,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/home-security/{property_id}/settings".format(property_id=quote(str(property_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SecurityStatus:
    if response.status_code == 200:
        response_200 = SecurityStatus.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | SecurityStatus]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    property_id: UUID,
    *,
    client: AuthenticatedClient,
    body: SettingsPatch,

) -> Response[Problem | SecurityStatus]:
    """ Changes a home's security settings (owners; Off with restoration
    complete).

    Args:
        property_id (UUID):
        body (SettingsPatch): A change of settings: any of the fields.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SecurityStatus]
     """


    kwargs = _get_kwargs(
        property_id=property_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    property_id: UUID,
    *,
    client: AuthenticatedClient,
    body: SettingsPatch,

) -> Problem | SecurityStatus | None:
    """ Changes a home's security settings (owners; Off with restoration
    complete).

    Args:
        property_id (UUID):
        body (SettingsPatch): A change of settings: any of the fields.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SecurityStatus
     """


    return sync_detailed(
        property_id=property_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    property_id: UUID,
    *,
    client: AuthenticatedClient,
    body: SettingsPatch,

) -> Response[Problem | SecurityStatus]:
    """ Changes a home's security settings (owners; Off with restoration
    complete).

    Args:
        property_id (UUID):
        body (SettingsPatch): A change of settings: any of the fields.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SecurityStatus]
     """


    kwargs = _get_kwargs(
        property_id=property_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    property_id: UUID,
    *,
    client: AuthenticatedClient,
    body: SettingsPatch,

) -> Problem | SecurityStatus | None:
    """ Changes a home's security settings (owners; Off with restoration
    complete).

    Args:
        property_id (UUID):
        body (SettingsPatch): A change of settings: any of the fields.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SecurityStatus
     """


    return (await asyncio_detailed(
        property_id=property_id,
client=client,
body=body,

    )).parsed
