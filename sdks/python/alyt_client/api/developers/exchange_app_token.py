from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.app_token import AppToken
from ...models.app_token_request import AppTokenRequest
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: AppTokenRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/apps/token",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> AppToken | Problem:
    if response.status_code == 200:
        response_200 = AppToken.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[AppToken | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: AppTokenRequest,

) -> Response[AppToken | Problem]:
    """ Exchanges an App ID and App secret for an access token valid five minutes
    (spec: Authentication 3). A wrong pair, a revoked or expired key and a key
    of a developer who is not active all get the same 401. No bearer token.

    Args:
        body (AppTokenRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppToken | Problem]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    body: AppTokenRequest,

) -> AppToken | Problem | None:
    """ Exchanges an App ID and App secret for an access token valid five minutes
    (spec: Authentication 3). A wrong pair, a revoked or expired key and a key
    of a developer who is not active all get the same 401. No bearer token.

    Args:
        body (AppTokenRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppToken | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: AppTokenRequest,

) -> Response[AppToken | Problem]:
    """ Exchanges an App ID and App secret for an access token valid five minutes
    (spec: Authentication 3). A wrong pair, a revoked or expired key and a key
    of a developer who is not active all get the same 401. No bearer token.

    Args:
        body (AppTokenRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppToken | Problem]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: AppTokenRequest,

) -> AppToken | Problem | None:
    """ Exchanges an App ID and App secret for an access token valid five minutes
    (spec: Authentication 3). A wrong pair, a revoked or expired key and a key
    of a developer who is not active all get the same 401. No bearer token.

    Args:
        body (AppTokenRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppToken | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
