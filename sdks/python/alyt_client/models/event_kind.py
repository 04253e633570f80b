from enum import StrEnum

class EventKind(StrEnum):
    COMMAND_RESULT = "command.result"
    DEVICE_OFFLINE = "device.offline"
    DEVICE_ONLINE = "device.online"
    DEVICE_TELEMETRY = "device.telemetry"
    GUEST_CHECKED_IN = "guest.checked_in"
    GUEST_CHECKED_OUT = "guest.checked_out"
    GUEST_INVITED = "guest.invited"
    NOTIFICATION_RAISED = "notification.raised"
    SUBMISSION_STATE = "submission.state"
    THING_STATE = "thing.state"
    WEBHOOK_PING = "webhook.ping"

    def __str__(self) -> str:
        return str(self.value)
