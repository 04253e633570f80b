from enum import StrEnum

class LivenessState(StrEnum):
    AWAITING_REPLACEMENT = "awaiting_replacement"
    DISABLED = "disabled"
    NOT_HEARD_FROM = "not_heard_from"
    OFFLINE = "offline"
    ONLINE = "online"
    PROVISIONING = "provisioning"

    def __str__(self) -> str:
        return str(self.value)
