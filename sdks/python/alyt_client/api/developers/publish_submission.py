from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.review_request import ReviewRequest
from ...models.reviewed_submission import ReviewedSubmission
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    version_id: UUID,
    *,
    body: None | ReviewRequest | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/developers/admin/submissions/{version_id}/publish".format(version_id=quote(str(version_id), safe=""),),
    }

    
    if isinstance(body, ReviewRequest):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | ReviewedSubmission:
    if response.status_code == 200:
        response_200 = ReviewedSubmission.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | ReviewedSubmission]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    version_id: UUID,
    *,
    client: AuthenticatedClient,
    body: None | ReviewRequest | Unset = UNSET,

) -> Response[Problem | ReviewedSubmission]:
    """ Publishes an approved version: the catalogue lists the connector's greatest published version, and
    any household may install it.

    Args:
        version_id (UUID):
        body (None | ReviewRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ReviewedSubmission]
     """


    kwargs = _get_kwargs(
        version_id=version_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    version_id: UUID,
    *,
    client: AuthenticatedClient,
    body: None | ReviewRequest | Unset = UNSET,

) -> Problem | ReviewedSubmission | None:
    """ Publishes an approved version: the catalogue lists the connector's greatest published version, and
    any household may install it.

    Args:
        version_id (UUID):
        body (None | ReviewRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ReviewedSubmission
     """


    return sync_detailed(
        version_id=version_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    version_id: UUID,
    *,
    client: AuthenticatedClient,
    body: None | ReviewRequest | Unset = UNSET,

) -> Response[Problem | ReviewedSubmission]:
    """ Publishes an approved version: the catalogue lists the connector's greatest published version, and
    any household may install it.

    Args:
        version_id (UUID):
        body (None | ReviewRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ReviewedSubmission]
     """


    kwargs = _get_kwargs(
        version_id=version_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    version_id: UUID,
    *,
    client: AuthenticatedClient,
    body: None | ReviewRequest | Unset = UNSET,

) -> Problem | ReviewedSubmission | None:
    """ Publishes an approved version: the catalogue lists the connector's greatest published version, and
    any household may install it.

    Args:
        version_id (UUID):
        body (None | ReviewRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ReviewedSubmission
     """


    return (await asyncio_detailed(
        version_id=version_id,
client=client,
body=body,

    )).parsed
