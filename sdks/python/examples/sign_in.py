"""Signing in: the two credentials a program can call Alyt with.

1. A developer key (``svc_dev_...``, made in the console's Keys page): sent as
   ``Authorization: Bearer <key>``, it works until it is revoked, for what its
   scopes allow. What a server-side program uses.
2. A developer session (email and password): a short-lived access token and a
   refresh token that renews it (a new pair each time: keep the newest).
   ``SessionToken`` holds the pair and refreshes it when asked.

    ALYT_BASE_URL=http://127.0.0.1:8080 ALYT_KEY=svc_dev_... \\
    ALYT_EMAIL=you@example.com ALYT_PASSWORD='...' python sign_in.py
"""

import os
import sys

from alyt_client.api.developers import developer_login, developer_who_am_i, get_developer_me
from alyt_client.models import LoginRequest
from alyt_sdk import AlytProblemError, SessionToken, create_client

BASE = os.environ.get("ALYT_BASE_URL", "http://127.0.0.1:8080")


def env(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"set {name} (see the top of this file)")
    return value


# 1. A developer key. The client raises AlytProblemError for every failure.
api = create_client(BASE, env("ALYT_KEY"))
caller = developer_who_am_i.sync(client=api)
print(f"key {caller.key_id} ({caller.key_kind}): scopes {', '.join(caller.scopes)}; sandbox {caller.tenants[0]}")

# 2. A session: sign in with email and password.
try:
    session = developer_login.sync(
        client=create_client(BASE), body=LoginRequest(email=env("ALYT_EMAIL"), password=env("ALYT_PASSWORD"))
    )
except AlytProblemError as error:
    # A refusal is a problem: status, detail, and the request's id for support.
    sys.exit(f"sign-in refused: {error.status} {error.detail} (request {error.request_id})")
print(f"signed in: the access token lives {session.expires_in} s")


def keep(access_token, refresh_token):
    # Your session store: the old refresh token no longer works.
    print("refreshed: the new pair is stored")


# The token function answers the current access token, and a refreshed one
# when asked with expired=True; keep each new pair (the refresh token rotates).
token = SessionToken(BASE, session.access_token, session.refresh_token, developer=True, on_refresh=keep)
developer = create_client(BASE, token)
me = get_developer_me.sync(client=developer)
print(f"session of {me.email}: sandbox {me.sandbox_tenant_id}")

# When a call answers 401 (the access token expired), refresh and call again.
# EventStream does this by itself; here a refresh is forced to show it.
if token(expired=True) is None:
    sys.exit("the session is over: sign in again")
print(f"still {get_developer_me.sync(client=developer).email} with the refreshed token")
