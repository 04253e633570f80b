from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.key_with_secret import KeyWithSecret
from ...models.problem import Problem
from typing import cast
from uuid import UUID



def _get_kwargs(
    key_id: UUID,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/keys/{key_id}/rotate".format(key_id=quote(str(key_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> KeyWithSecret | Problem:
    if response.status_code == 200:
        response_200 = KeyWithSecret.from_dict(response.json())



        return response_200

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[KeyWithSecret | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    key_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[KeyWithSecret | Problem]:
    """ Gives the key a new secret, shown this once; the old secret stops working at
    once. The key id, which is the App ID, stays, and so does its kind; the new
    secret is `svc_dev_…` whatever the kind (a LIVE key's `svc_live_…` secret
    from before becomes one too). App tokens already issued name
    the key, not the secret, and run out within their five minutes (revoke the
    key to stop them at once). Session only.

    Args:
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeyWithSecret | Problem]
     """


    kwargs = _get_kwargs(
        key_id=key_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    key_id: UUID,
    *,
    client: AuthenticatedClient,

) -> KeyWithSecret | Problem | None:
    """ Gives the key a new secret, shown this once; the old secret stops working at
    once. The key id, which is the App ID, stays, and so does its kind; the new
    secret is `svc_dev_…` whatever the kind (a LIVE key's `svc_live_…` secret
    from before becomes one too). App tokens already issued name
    the key, not the secret, and run out within their five minutes (revoke the
    key to stop them at once). Session only.

    Args:
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeyWithSecret | Problem
     """


    return sync_detailed(
        key_id=key_id,
client=client,

    ).parsed

async def asyncio_detailed(
    key_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[KeyWithSecret | Problem]:
    """ Gives the key a new secret, shown this once; the old secret stops working at
    once. The key id, which is the App ID, stays, and so does its kind; the new
    secret is `svc_dev_…` whatever the kind (a LIVE key's `svc_live_…` secret
    from before becomes one too). App tokens already issued name
    the key, not the secret, and run out within their five minutes (revoke the
    key to stop them at once). Session only.

    Args:
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeyWithSecret | Problem]
     """


    kwargs = _get_kwargs(
        key_id=key_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    key_id: UUID,
    *,
    client: AuthenticatedClient,

) -> KeyWithSecret | Problem | None:
    """ Gives the key a new secret, shown this once; the old secret stops working at
    once. The key id, which is the App ID, stays, and so does its kind; the new
    secret is `svc_dev_…` whatever the kind (a LIVE key's `svc_live_…` secret
    from before becomes one too). App tokens already issued name
    the key, not the secret, and run out within their five minutes (revoke the
    key to stop them at once). Session only.

    Args:
        key_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeyWithSecret | Problem
     """


    return (await asyncio_detailed(
        key_id=key_id,
client=client,

    )).parsed
