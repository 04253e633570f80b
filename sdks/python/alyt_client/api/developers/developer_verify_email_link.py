from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.developer_session import DeveloperSession
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    token: str,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["token"] = token


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/developers/auth/verify-email",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | DeveloperSession | Problem:
    if response.status_code == 200:
        response_200 = DeveloperSession.from_dict(response.json())



        return response_200

    if response.status_code == 303:
        response_303 = cast(Any, None)
        return response_303

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())



        return response_403

    if response.status_code == 410:
        response_410 = Problem.from_dict(response.json())



        return response_410

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | DeveloperSession | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    token: str,

) -> Response[Any | DeveloperSession | Problem]:
    """ The link in the mail. A browser (`Accept: text/html`) is sent to the
    console's page, which verifies when the person presses its button (a
    mail scanner that fetches links verifies nothing, and nobody lands on
    JSON); any other client is verified as by the POST.

    Args:
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DeveloperSession | Problem]
     """


    kwargs = _get_kwargs(
        token=token,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    token: str,

) -> Any | DeveloperSession | Problem | None:
    """ The link in the mail. A browser (`Accept: text/html`) is sent to the
    console's page, which verifies when the person presses its button (a
    mail scanner that fetches links verifies nothing, and nobody lands on
    JSON); any other client is verified as by the POST.

    Args:
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DeveloperSession | Problem
     """


    return sync_detailed(
        client=client,
token=token,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    token: str,

) -> Response[Any | DeveloperSession | Problem]:
    """ The link in the mail. A browser (`Accept: text/html`) is sent to the
    console's page, which verifies when the person presses its button (a
    mail scanner that fetches links verifies nothing, and nobody lands on
    JSON); any other client is verified as by the POST.

    Args:
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DeveloperSession | Problem]
     """


    kwargs = _get_kwargs(
        token=token,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    token: str,

) -> Any | DeveloperSession | Problem | None:
    """ The link in the mail. A browser (`Accept: text/html`) is sent to the
    console's page, which verifies when the person presses its button (a
    mail scanner that fetches links verifies nothing, and nobody lands on
    JSON); any other client is verified as by the POST.

    Args:
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DeveloperSession | Problem
     """


    return (await asyncio_detailed(
        client=client,
token=token,

    )).parsed
