from enum import StrEnum

class Scope(StrEnum):
    AICHAT = "ai:chat"
    DEVICESCOMMANDS = "devices:commands"
    DEVICESREAD = "devices:read"
    DEVICESWRITE = "devices:write"
    EVENTSREAD = "events:read"
    FIRMWAREREAD = "firmware:read"
    GUESTSWRITE = "guests:write"
    INTEGRATIONSREAD = "integrations:read"
    INTEGRATIONSWRITE = "integrations:write"
    NOTIFICATIONSREAD = "notifications:read"
    NOTIFICATIONSWRITE = "notifications:write"
    ROOMSWRITE = "rooms:write"
    SIMULATORWRITE = "simulator:write"
    TELEMETRYREAD = "telemetry:read"
    TENANTREAD = "tenant:read"
    THINGSCONTROL = "things:control"
    THINGSREAD = "things:read"
    WEBHOOKSWRITE = "webhooks:write"

    def __str__(self) -> str:
        return str(self.value)
