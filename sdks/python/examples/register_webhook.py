"""Registering a webhook endpoint: the platform POSTs the events you choose to
your URL, signed with the endpoint's secret. The secret is shown once, in this
answer: store it where your receiver reads it (webhook_receiver.py).

    ALYT_BASE_URL=http://127.0.0.1:8080 ALYT_KEY=svc_dev_... \\
    ALYT_WEBHOOK_URL=http://127.0.0.1:8000/webhooks/alyt python register_webhook.py

The key needs the scope webhooks:write; the endpoint is bound to it. The
hosted platform takes https URLs only (the local one also http://127.0.0.1).
``POST /v1/developers/webhooks/{webhookId}/test`` sends it a ``webhook.ping``.
"""

import os
import sys

from alyt_client.api.developers import create_webhook
from alyt_client.models import CreateWebhookRequest, EventKind
from alyt_sdk import AlytProblemError, create_client

BASE = os.environ.get("ALYT_BASE_URL", "http://127.0.0.1:8080")
KEY = os.environ.get("ALYT_KEY")
URL = os.environ.get("ALYT_WEBHOOK_URL")
if not KEY or not URL:
    sys.exit("set ALYT_KEY and ALYT_WEBHOOK_URL (see the top of this file)")

api = create_client(BASE, KEY)
try:
    endpoint = create_webhook.sync(
        client=api,
        body=CreateWebhookRequest(
            url=URL, events=[EventKind.COMMAND_RESULT, EventKind.THING_STATE], description="example receiver"
        ),
    )
except AlytProblemError as error:
    # e.g. 400 with field `url` for a URL the platform does not deliver to.
    sys.exit(f"refused: {error.status} {error.detail}" + (f" (field {error.field})" if error.field else ""))
print(f"endpoint {endpoint.id} receives {', '.join(endpoint.events)} at {endpoint.url}")
print(f"ALYT_WEBHOOK_SECRET={endpoint.secret}")
