from enum import StrEnum

class DeviceStatus(StrEnum):
    AWAITING_REPLACEMENT = "AWAITING_REPLACEMENT"
    DISABLED = "DISABLED"
    OFFLINE = "OFFLINE"
    ONLINE = "ONLINE"
    PROVISIONING = "PROVISIONING"

    def __str__(self) -> str:
        return str(self.value)
