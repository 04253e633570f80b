from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.sign_up_accepted import SignUpAccepted
from ...models.sign_up_request import SignUpRequest
from typing import cast



def _get_kwargs(
    *,
    body: SignUpRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/auth/signup",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SignUpAccepted:
    if response.status_code == 202:
        response_202 = SignUpAccepted.from_dict(response.json())



        return response_202

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())



        return response_503

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | SignUpAccepted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SignUpRequest,

) -> Response[Problem | SignUpAccepted]:
    """ Signs a developer up: checks the bot token, the address and the password
    policy, and mails a verification link (valid 24 hours, once). The answer is
    the same whether or not the address already has an account (that one gets a
    mail saying so instead).

    Args:
        body (SignUpRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SignUpAccepted]
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
    body: SignUpRequest,

) -> Problem | SignUpAccepted | None:
    """ Signs a developer up: checks the bot token, the address and the password
    policy, and mails a verification link (valid 24 hours, once). The answer is
    the same whether or not the address already has an account (that one gets a
    mail saying so instead).

    Args:
        body (SignUpRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SignUpAccepted
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SignUpRequest,

) -> Response[Problem | SignUpAccepted]:
    """ Signs a developer up: checks the bot token, the address and the password
    policy, and mails a verification link (valid 24 hours, once). The answer is
    the same whether or not the address already has an account (that one gets a
    mail saying so instead).

    Args:
        body (SignUpRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SignUpAccepted]
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
    body: SignUpRequest,

) -> Problem | SignUpAccepted | None:
    """ Signs a developer up: checks the bot token, the address and the password
    policy, and mails a verification link (valid 24 hours, once). The answer is
    the same whether or not the address already has an account (that one gets a
    mail saying so instead).

    Args:
        body (SignUpRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SignUpAccepted
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
