from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.quota_defaults import QuotaDefaults
from typing import cast



def _get_kwargs(
    
) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/developers/admin/quota-defaults",
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | QuotaDefaults:
    if response.status_code == 200:
        response_200 = QuotaDefaults.from_dict(response.json())



        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | QuotaDefaults]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,

) -> Response[Problem | QuotaDefaults]:
    """ The quota defaults that apply to every developer without an override
    (platform OWNER, STAFF or SUPPORT). Unless the platform configured others:
    REQUESTS 100000 a day with a burst of 600 a minute, VIRTUAL_DEVICES 20
    (devices held at once), MQTT_MESSAGES 1000000 a day.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | QuotaDefaults]
     """


    kwargs = _get_kwargs(
        
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,

) -> Problem | QuotaDefaults | None:
    """ The quota defaults that apply to every developer without an override
    (platform OWNER, STAFF or SUPPORT). Unless the platform configured others:
    REQUESTS 100000 a day with a burst of 600 a minute, VIRTUAL_DEVICES 20
    (devices held at once), MQTT_MESSAGES 1000000 a day.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | QuotaDefaults
     """


    return sync_detailed(
        client=client,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,

) -> Response[Problem | QuotaDefaults]:
    """ The quota defaults that apply to every developer without an override
    (platform OWNER, STAFF or SUPPORT). Unless the platform configured others:
    REQUESTS 100000 a day with a burst of 600 a minute, VIRTUAL_DEVICES 20
    (devices held at once), MQTT_MESSAGES 1000000 a day.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | QuotaDefaults]
     """


    kwargs = _get_kwargs(
        
    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,

) -> Problem | QuotaDefaults | None:
    """ The quota defaults that apply to every developer without an override
    (platform OWNER, STAFF or SUPPORT). Unless the platform configured others:
    REQUESTS 100000 a day with a burst of 600 a minute, VIRTUAL_DEVICES 20
    (devices held at once), MQTT_MESSAGES 1000000 a day.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | QuotaDefaults
     """


    return (await asyncio_detailed(
        client=client,

    )).parsed
