from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.change_submission_request import ChangeSubmissionRequest
from ...models.problem import Problem
from ...models.submission import Submission
from typing import cast
from uuid import UUID



def _get_kwargs(
    version_id: UUID,
    *,
    body: ChangeSubmissionRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/developers/submissions/{version_id}".format(version_id=quote(str(version_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Submission:
    if response.status_code == 200:
        response_200 = Submission.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Submission]:
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
    body: ChangeSubmissionRequest,

) -> Response[Problem | Submission]:
    """ Changes a draft or a version whose changes were requested, and submits
    it with `submit: true`.

    Args:
        version_id (UUID):
        body (ChangeSubmissionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Submission]
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
    body: ChangeSubmissionRequest,

) -> Problem | Submission | None:
    """ Changes a draft or a version whose changes were requested, and submits
    it with `submit: true`.

    Args:
        version_id (UUID):
        body (ChangeSubmissionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Submission
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
    body: ChangeSubmissionRequest,

) -> Response[Problem | Submission]:
    """ Changes a draft or a version whose changes were requested, and submits
    it with `submit: true`.

    Args:
        version_id (UUID):
        body (ChangeSubmissionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Submission]
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
    body: ChangeSubmissionRequest,

) -> Problem | Submission | None:
    """ Changes a draft or a version whose changes were requested, and submits
    it with `submit: true`.

    Args:
        version_id (UUID):
        body (ChangeSubmissionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Submission
     """


    return (await asyncio_detailed(
        version_id=version_id,
client=client,
body=body,

    )).parsed
