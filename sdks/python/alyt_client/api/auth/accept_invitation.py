from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.accept_invitation_request import AcceptInvitationRequest
from ...models.problem import Problem
from ...models.token_pair import TokenPair
from typing import cast



def _get_kwargs(
    token: str,
    *,
    body: AcceptInvitationRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/auth/invitations/{token}/accept".format(token=quote(str(token), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | TokenPair:
    if response.status_code == 200:
        response_200 = TokenPair.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 410:
        response_410 = Problem.from_dict(response.json())



        return response_410

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | TokenPair]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    token: str,
    *,
    client: AuthenticatedClient | Client,
    body: AcceptInvitationRequest,

) -> Response[Problem | TokenPair]:
    """ Accepts an invitation: the person is a member and signed in.

    Args:
        token (str):
        body (AcceptInvitationRequest): Accepting a link: a new person names themselves and
            chooses a password;
            an address that has an account sends that account's password (and its
            TOTP code when MFA is on).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TokenPair]
     """


    kwargs = _get_kwargs(
        token=token,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    token: str,
    *,
    client: AuthenticatedClient | Client,
    body: AcceptInvitationRequest,

) -> Problem | TokenPair | None:
    """ Accepts an invitation: the person is a member and signed in.

    Args:
        token (str):
        body (AcceptInvitationRequest): Accepting a link: a new person names themselves and
            chooses a password;
            an address that has an account sends that account's password (and its
            TOTP code when MFA is on).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TokenPair
     """


    return sync_detailed(
        token=token,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    token: str,
    *,
    client: AuthenticatedClient | Client,
    body: AcceptInvitationRequest,

) -> Response[Problem | TokenPair]:
    """ Accepts an invitation: the person is a member and signed in.

    Args:
        token (str):
        body (AcceptInvitationRequest): Accepting a link: a new person names themselves and
            chooses a password;
            an address that has an account sends that account's password (and its
            TOTP code when MFA is on).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TokenPair]
     """


    kwargs = _get_kwargs(
        token=token,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    token: str,
    *,
    client: AuthenticatedClient | Client,
    body: AcceptInvitationRequest,

) -> Problem | TokenPair | None:
    """ Accepts an invitation: the person is a member and signed in.

    Args:
        token (str):
        body (AcceptInvitationRequest): Accepting a link: a new person names themselves and
            chooses a password;
            an address that has an account sends that account's password (and its
            TOTP code when MFA is on).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TokenPair
     """


    return (await asyncio_detailed(
        token=token,
client=client,
body=body,

    )).parsed
