"""A webhook receiver (FastAPI): checks each delivery's ``X-SVC-Signature``
against the raw body with the SDK's ``verify``, handles each event once, and
answers 2xx quickly.

- Verify the raw bytes (``await request.body()``), before any JSON parsing:
  not a pydantic model of the body, which is not the bytes that were signed.
- A delivery that got no 2xx (a timeout, a crash) is sent again, so the same
  event can arrive twice: deduplicate on the envelope's ``id`` (here a set; in
  production a unique key in your database).
- Answer within a few seconds: queue slow work instead of doing it here.

    pip install alyt-sdk fastapi uvicorn
    ALYT_WEBHOOK_SECRET=whsec_... PORT=8000 python webhook_receiver.py

(The secret is the one register_webhook.py printed.) Or, with the variable
set: ``uvicorn webhook_receiver:app --port 8000``.
"""

import json
import os
import sys

from alyt_sdk import SIGNATURE_HEADER, SignatureError, verify
from fastapi import FastAPI, Request, Response

SECRET = os.environ.get("ALYT_WEBHOOK_SECRET") or sys.exit("set ALYT_WEBHOOK_SECRET (see the top of this file)")

app = FastAPI()
handled = set()


def handle(event):
    data = event["data"]
    if event["type"] == "command.result":
        print(f"received {event['type']} {event['id']}: command {data['commandId']} {data['status']}", flush=True)
    else:
        print(f"received {event['type']} {event['id']}: {json.dumps(data)}", flush=True)


@app.post("/webhooks/alyt")
async def alyt_webhook(request: Request):
    body = await request.body()
    try:
        verify(body, request.headers.get(SIGNATURE_HEADER), SECRET)
    except SignatureError as error:
        print(f"rejected a delivery: {error}", flush=True)
        return Response(status_code=400)
    event = json.loads(body)
    if event["id"] in handled:
        print(f"duplicate {event['id']}: already handled", flush=True)
    else:
        handled.add(event["id"])
        handle(event)
    return Response(status_code=204)


if __name__ == "__main__":
    import uvicorn

    # Loopback: in production, behind your https proxy.
    uvicorn.run(app, host="127.0.0.1", port=int(os.environ.get("PORT", "8000")))
