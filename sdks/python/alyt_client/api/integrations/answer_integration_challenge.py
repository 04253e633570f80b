from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.challenge_answer import ChallengeAnswer
from ...models.connect_result_type_0 import ConnectResultType0
from ...models.connect_result_type_1 import ConnectResultType1
from ...models.connect_result_type_2 import ConnectResultType2
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: ChallengeAnswer,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/integrations/challenge",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ConnectResultType0 | ConnectResultType1 | ConnectResultType2 | Problem:
    if response.status_code == 200:
        def _parse_response_200(data: object) -> ConnectResultType0 | ConnectResultType1 | ConnectResultType2:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_connect_result_type_0 = ConnectResultType0.from_dict(data)



                return componentsschemas_connect_result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_connect_result_type_1 = ConnectResultType1.from_dict(data)



                return componentsschemas_connect_result_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_connect_result_type_2 = ConnectResultType2.from_dict(data)



            return componentsschemas_connect_result_type_2

        response_200 = _parse_response_200(response.json())

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

    if response.status_code == 410:
        response_410 = Problem.from_dict(response.json())



        return response_410

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())



        return response_429

    if response.status_code == 502:
        response_502 = Problem.from_dict(response.json())



        return response_502

    response_default = Problem.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ConnectResultType0 | ConnectResultType1 | ConnectResultType2 | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ChallengeAnswer,

) -> Response[ConnectResultType0 | ConnectResultType1 | ConnectResultType2 | Problem]:
    """ Answers a connect challenge.

    Args:
        body (ChallengeAnswer):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConnectResultType0 | ConnectResultType1 | ConnectResultType2 | Problem]
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
    client: AuthenticatedClient,
    body: ChallengeAnswer,

) -> ConnectResultType0 | ConnectResultType1 | ConnectResultType2 | Problem | None:
    """ Answers a connect challenge.

    Args:
        body (ChallengeAnswer):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConnectResultType0 | ConnectResultType1 | ConnectResultType2 | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ChallengeAnswer,

) -> Response[ConnectResultType0 | ConnectResultType1 | ConnectResultType2 | Problem]:
    """ Answers a connect challenge.

    Args:
        body (ChallengeAnswer):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConnectResultType0 | ConnectResultType1 | ConnectResultType2 | Problem]
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
    client: AuthenticatedClient,
    body: ChallengeAnswer,

) -> ConnectResultType0 | ConnectResultType1 | ConnectResultType2 | Problem | None:
    """ Answers a connect challenge.

    Args:
        body (ChallengeAnswer):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConnectResultType0 | ConnectResultType1 | ConnectResultType2 | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
